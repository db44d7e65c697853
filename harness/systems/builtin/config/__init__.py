"""The built-in system's complete search configuration, and the capabilities it does not have."""
