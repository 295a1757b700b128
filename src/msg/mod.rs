//! Message definitions → decoded values.
