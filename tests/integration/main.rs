//! The integration tests, as one test binary (`cargo test --test integration`; one module
//! per area, `cargo test --test integration cli_echo` runs one). Helpers are in
//! `tests/common/`, fixtures in `tests/fixtures/`, snapshots in `tests/integration/snapshots/`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::pedantic,
    clippy::format_push_string
)]

#[path = "../common/mod.rs"]
mod common;

mod active_scan;
mod catalog_merge;
mod cli_computed;
mod cli_echo;
mod cli_echo_field;
mod cli_filter;
mod cli_help;
mod cli_info;
mod cli_log;
mod cli_play;
mod cli_serve;
mod cli_terminal;
mod cli_truth;
mod cli_where;
mod corpus_reader;
mod damaged_input;
mod eco_cli;
mod eco_dist;
mod eco_shell;
mod export_sinks;
mod export_where;
mod file_access;
mod file_hazards;
mod follow_cli;
mod follow_mcap;
mod follow_record;
mod fuzz_inputs;
mod index_query;
mod info_cache;
mod interop_rosbag;
mod interop_writer;
mod layering;
mod lazy_heads;
mod mcap_conformance;
mod mcap_damage;
mod mcap_explorer;
mod mcap_json;
mod mcap_refs;
mod msg_bundled;
mod msg_cdr;
mod msg_corpus;
mod msg_definition;
mod msg_idl;
mod msg_md5;
mod msg_rostopic;
mod msg_roundtrip;
mod msg_samples;
mod msg_srv_md5;
mod output_targets;
mod picture_export;
mod recover_partial;
mod reindex_truncated;
mod rockin_convert;
mod rockin_interop;
mod ros2_bundled;
mod ros2_db3;
mod ros2_dir;
mod ros2_exports;
mod ros2_surfaces;
mod ros_crowds;
mod ros_deadlines;
mod ros_hostile;
mod ros_play;
mod ros_serve;
mod topic_bandwidth;
mod tui_escaping;
mod tui_follow;
mod tui_follow_plot;
mod tui_graphics;
mod tui_lanes;
mod tui_leaving;
mod tui_log;
mod tui_pictures;
mod tui_plot;
mod tui_read;
mod tui_ros;
mod tui_scan;
mod tui_search;
mod tui_snapshots;
mod tui_startup;
mod tui_threads;
mod tui_thumbnails;
mod tui_tmux;
mod tui_truths;
mod tui_xy;
mod writer_layout;
mod writer_roundtrip;
