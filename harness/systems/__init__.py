"""Systems under test: the interface a retrieval system implements, and the built-in system."""
