"""Every ranking replayed from primary data.

Lexical, dense and fused lanes, every row, no sample.
"""
