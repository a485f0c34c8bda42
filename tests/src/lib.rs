//! Shared fixtures for the black-box tests.
