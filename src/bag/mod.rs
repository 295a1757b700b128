//! An open bag.
