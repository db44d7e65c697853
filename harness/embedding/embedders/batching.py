"""Equal-length batching: prompts of the same token count share one forward pass, and no batch is padded.

A batch of prompts that all have the same number of word pieces (after the model's own cut at its token
limit) needs no padding and no attention mask beyond ones, so each row of the batch is computed from its
own prompt alone. Measured on all 5,483 SciFact prompts with `scripts/embedding_batching.py`, every
vector is byte-identical to batch size 1, which is why this scheme keeps the model identity's
`batch_size: 1` (the vectors are those of one prompt per forward pass). That holds for a pass on one thread
(`forward.py` runs each on one): with two threads inside a pass, one AVX-512 machine's kernels rounded by the
batch's shape. Padded batches change bytes and are never used.

Very short prompts are the exception: on this machine, batches of prompts of 7, 9, 10 or 11 word pieces
gave other bytes than one prompt at a time (the matrix kernels take another path for so few rows), while
every length probed from 12 to 129 gave the same bytes. Prompts shorter than MIN_BATCHED_LENGTH are
therefore always embedded alone; they are cheap, and only a few SciFact queries are that short.

A batch also holds at most MAX_BATCH_TOKENS word pieces in all (8 prompts of 256, 32 of 64): past that, the
attention's score tensors of a batch (batch x 12 heads x length^2 floats, 100 MB for 32 prompts of 256) no longer
fit the caches, and long prompts came out slower batched 32 at a time than 8 at a time. In one comparison of
caps on every document prompt of every 4th token length (1,369 prompts, a one-off measurement), 2,048 ran about
8% faster than batches of 32 regardless of length (4,096 about the same, 1,024 slower), with the same bytes; in
whole cold builds the cap took the batched rate from 43.6 to 48.3 texts/s and system CPU from 16 s to 2 s.

The plan is pure: `order` says in which sequence to embed the prompts (by token count, then by their
given position), `batches` cuts a sequence into runs of equal token count of at most `max_batch` prompts and
`MAX_BATCH_TOKENS` word pieces.
"""

from collections.abc import Sequence

DEFAULT_MAX_BATCH = 32
MAX_BATCH_TOKENS = 2048
MIN_BATCHED_LENGTH = 16


def order(lengths: Sequence[int]) -> list[int]:
    """Positions sorted by token count, ties in their given order: equal lengths become neighbours."""
    return sorted(range(len(lengths)), key=lambda position: (lengths[position], position))


def batches(lengths: Sequence[int], max_batch: int = DEFAULT_MAX_BATCH) -> list[list[int]]:
    """Consecutive positions of equal token count, at most max_batch each and MAX_BATCH_TOKENS word pieces in all,
    in the given order; a prompt shorter than MIN_BATCHED_LENGTH word pieces is a batch of its own."""
    if max_batch < 1:
        raise ValueError(f"max_batch must be at least 1, not {max_batch}")
    plan: list[list[int]] = []
    for position, length in enumerate(lengths):
        if (plan and len(plan[-1]) < max_batch and lengths[plan[-1][0]] == length >= MIN_BATCHED_LENGTH
                and (len(plan[-1]) + 1) * length <= MAX_BATCH_TOKENS):
            plan[-1].append(position)
        else:
            plan.append([position])
    return plan
