"""Milvus as a system under test, through the plugin interface: embedded Milvus Lite by default, or a server."""
