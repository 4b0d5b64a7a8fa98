//! One Pi session end to end on real repositories, and the gate under hostile input through it.

mod end_to_end;
mod hostile;
