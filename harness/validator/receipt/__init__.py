"""What the receipt binds the run to, resolved against the files.

Corpus, split, identity, configuration and freeze; executable, source, dependencies and machine.
"""
