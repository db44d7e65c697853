"""What a run writes about itself.

The receipt and its provenance (interpreter, source, machine), the claim boundary, the artifact names and
their atomic writing, and the identity strings held to the schemas' one-line rule.
"""
