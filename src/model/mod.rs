//! The kinematic robot model every reader produces.
