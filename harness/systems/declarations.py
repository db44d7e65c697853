"""What a system may declare about itself that the validator then replays on its own."""

# The dense lane scores every document by the float32 inner product of the fixture's unit vectors: the validator
# replays that lane from the fixture.
DENSE_EXACT = "exact_inner_product"
