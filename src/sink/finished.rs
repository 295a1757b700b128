//! What a completed sink reports.

/// What a sink wrote, and what it left out.
#[derive(Debug, Default)]
pub struct Finished {
    /// One line per file written (or summary item).
    pub wrote: Vec<String>,
    /// Messages the sink could not write, one line per reason with how many.
    pub left_out: Vec<String>,
}
