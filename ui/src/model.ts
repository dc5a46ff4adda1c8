// The shapes of a project as the engine sends them to the editor. They
// are generated from the engine's Rust types (engine-types.ts, checked by
// `cargo test`), so the two cannot drift. Views read these; they never
// compute what a segment sounds like or where it lands: the engine does.
export type { SegmentState, Fit, Segment, Speaker, Track, Project, Peaks } from "./engine-types";
