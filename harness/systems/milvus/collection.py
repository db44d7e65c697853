"""One SciFact collection in Milvus, through pymilvus: created with its marker (which fixture and configuration it
holds), filled in batches that a rerun resumes, and searched lane by lane or hybrid."""

import itertools
import json
from typing import Any

import numpy as np
from numpy.typing import NDArray

from harness.errors import HarnessError, RefusedError
from harness.systems.milvus import settings
from harness.systems.plugin.api import Corpus

MARKER = "scifact_marker"  # the collection property naming the fixture and configuration it was built from
REBUILD = "use a new --store-dir (or drop the collection on the server) to build it afresh"


class MilvusUnavailableError(HarnessError):
    """pymilvus (the optional extra `milvus`) is not installed, or the server does not answer."""


class MilvusAnswerError(HarnessError):
    """The engine answered in a form this system does not read correctly (a score convention it does not know)."""


class MilvusMismatchError(RefusedError):
    """The collection holds another fixture or configuration, or is not complete."""


def connect(uri: str, token: str | None, *, lite: bool) -> "Collection":
    try:
        from pymilvus import MilvusClient
    except ImportError as exc:
        raise MilvusUnavailableError("the Milvus system needs the milvus extra: make setup-milvus (or pip install -e "
                                     "'.[milvus]'; Milvus Lite comes with it)") from exc
    try:
        client = MilvusClient(uri, token=token or "")
    except Exception as exc:
        raise MilvusUnavailableError(f"cannot reach Milvus at {uri}: {type(exc).__name__}: {exc}") from exc
    return Collection(client, uri if lite else None)


LITE_VERSION_PREFIX = "milvus_lite"  # what Milvus Lite answers to GetVersion, embedded or as a gRPC server


class Collection:
    def __init__(self, client: Any, lite_path: str | None) -> None:
        self.client, self.name, self.lite_path = client, settings.COLLECTION, lite_path
        self.version = str(client.get_server_version())
        # Milvus Lite reports a BM25 relevance as a negative distance, best first; Milvus servers as the relevance.
        self.lite_engine = self.version.startswith(LITE_VERSION_PREFIX)

    def _create(self, marker: dict[str, str], dimensions: int) -> None:
        from pymilvus import DataType, Function, FunctionType

        schema = self.client.create_schema(auto_id=False, enable_dynamic_field=False)
        schema.add_field("fact_id", DataType.INT64, is_primary=True)
        schema.add_field("doc_id", DataType.VARCHAR, max_length=256)
        schema.add_field("text", DataType.VARCHAR, max_length=65535, enable_analyzer=True,
                         analyzer_params=settings.ANALYZER)
        schema.add_field("sparse", DataType.SPARSE_FLOAT_VECTOR)
        schema.add_field("dense", DataType.FLOAT_VECTOR, dim=dimensions)
        schema.add_function(Function(name="bm25", function_type=FunctionType.BM25, input_field_names=["text"],
                                     output_field_names=["sparse"]))
        index = self.client.prepare_index_params()
        index.add_index(field_name="dense", index_type="FLAT", metric_type="IP")
        index.add_index(field_name="sparse", index_type="SPARSE_INVERTED_INDEX", metric_type="BM25",
                        params=dict(settings.BM25))
        self.client.create_collection(self.name, schema=schema, index_params=index,
                                      properties={MARKER: json.dumps(marker, sort_keys=True)})

    def _marker(self) -> dict[str, str]:
        description = (self.client.describe_collection(self.name).get("properties") or {}).get(MARKER) or "{}"
        try:
            marker: dict[str, str] = json.loads(description)
        except ValueError:
            marker = {}
        return marker

    def _present(self) -> set[int]:
        self.client.load_collection(self.name)  # a reopened collection is released until loaded
        found: set[int] = set()
        iterator = self.client.query_iterator(self.name, batch_size=1000, filter="fact_id >= 0",
                                              output_fields=["fact_id"])
        while batch := iterator.next():
            found.update(int(row["fact_id"]) for row in batch)
        iterator.close()
        return found

    def _check_marker(self, marker: dict[str, str]) -> None:
        held = self._marker()
        differing = sorted(k for k in marker if held.get(k) != marker[k])
        if differing:
            raise MilvusMismatchError(f"Milvus collection {self.name!r} was built from another "
                                      f"{' and '.join(k.removesuffix('_sha256') for k in differing)} "
                                      f"({', '.join(f'{k}: {held.get(k)} here, {marker[k]} now' for k in differing)}); "
                                      f"{REBUILD}")

    def ensure(self, corpus: Corpus, marker: dict[str, str]) -> bool:
        """Create and fill the collection, resume a partial one, or reuse a complete one; True if anything changed."""
        changed = not self.client.has_collection(self.name)
        if changed:
            self._create(marker, corpus.dimensions)
        self._check_marker(marker)
        present = self._present()
        missing = [i for i in range(len(corpus.doc_ids)) if i + 1 not in present]
        for start in range(0, len(missing), settings.INSERT_BATCH):
            batch = missing[start:start + settings.INSERT_BATCH]
            self.client.insert(self.name, [{"fact_id": i + 1, "doc_id": corpus.doc_ids[i],
                                            "text": f"{corpus.titles[i].strip()} {corpus.texts[i].strip()}",
                                            "dense": corpus.vectors[i].tolist()} for i in batch])
        if missing:
            self.client.flush(self.name)
        self.load()
        return changed or bool(missing)

    def load(self) -> None:
        """Load the collection and search each index once: Milvus Lite writes an index file on first use, and the
        system's parts must not change during a run."""
        self.client.load_collection(self.name)
        probe = self.client.describe_collection(self.name)
        dimensions = next(int(f["params"]["dim"]) for f in probe["fields"] if f["name"] == "dense")
        self.lexical("warm up", 1)
        self.dense(np.zeros(dimensions, dtype=np.float32), 1)

    def close(self) -> None:
        """Close the connection; for Milvus Lite also stop its in-process server, which holds the directory's lock
        until then (another process could not open it)."""
        self.client.close()
        if self.lite_path is not None:
            from milvus_lite.server_manager import server_manager_instance

            server_manager_instance.release_server(self.lite_path)

    def require(self, corpus: Corpus, marker: dict[str, str]) -> None:
        if not self.client.has_collection(self.name):
            raise MilvusMismatchError(f"no Milvus collection {self.name!r} here: run the calibration first, which "
                                      "builds it")
        self._check_marker(marker)
        count = len(self._present())
        if count != len(corpus.doc_ids):
            raise MilvusMismatchError(f"Milvus collection {self.name!r} holds {count} of {len(corpus.doc_ids)} "
                                      "documents: rerun the calibration to finish building it")
        self.load()

    def lexical(self, text: str, depth: int) -> list[tuple[str, float]]:
        [hits] = self.client.search(self.name, data=[text], anns_field="sparse", limit=depth, output_fields=["doc_id"],
                                    search_params={"metric_type": "BM25"})
        sign = -1.0 if self.lite_engine else 1.0
        scored = [(hit["entity"]["doc_id"], sign * float(hit["distance"])) for hit in hits]
        if any(later[1] > earlier[1] for earlier, later in itertools.pairwise(scored)):
            # The engine ranks best first; relevance that rises down its list means the sign was read wrongly.
            raise MilvusAnswerError(f"Milvus {self.version} ranks BM25 hits with scores that rise down the list "
                                    f"({scored[0][1]} then {scored[-1][1]}): its score convention is not the one this "
                                    "system assumes (Milvus Lite: a negative distance; a server: the relevance); "
                                    "report the server version")
        return scored

    def dense(self, vector: NDArray[np.float32], depth: int) -> list[tuple[str, float]]:
        [hits] = self.client.search(self.name, data=[vector.tolist()], anns_field="dense", limit=depth,
                                    output_fields=["doc_id"], search_params={"metric_type": "IP"})
        return [(hit["entity"]["doc_id"], float(hit["distance"])) for hit in hits]

    def hybrid(self, text: str, vector: NDArray[np.float32], depth: int, k: int, limit: int
               ) -> list[tuple[str, float]]:
        from pymilvus import AnnSearchRequest, RRFRanker

        requests = [AnnSearchRequest(data=[text], anns_field="sparse", param={"metric_type": "BM25"}, limit=depth),
                    AnnSearchRequest(data=[vector.tolist()], anns_field="dense", param={"metric_type": "IP"},
                                     limit=depth)]
        [hits] = self.client.hybrid_search(self.name, requests, RRFRanker(k), limit=limit, output_fields=["doc_id"])
        return [(hit["entity"]["doc_id"], float(hit["distance"])) for hit in hits]

    def description(self) -> dict[str, Any]:
        """What a server is asked about the collection: its schema, row count and indexes (attested, not proven)."""
        schema = self.client.describe_collection(self.name)
        return {"collection": self.name, "schema": json.loads(json.dumps(schema, default=str)),
                "row_count": int(self.client.get_collection_stats(self.name)["row_count"]),
                "indexes": {field: self.client.describe_index(self.name, field) for field in ("sparse", "dense")}}
