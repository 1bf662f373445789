//! Independent encoders and references the tests compare docshape against.

pub mod column_encoder;
pub mod reference_profile;
