"""One timed run of pymongo-schema over a file of concatenated BSON.

    python pymongo_schema_run.py FILE

pymongo-schema reads a live server: its extract_collection_schema() takes a
pymongo Collection, calls estimated_document_count() and iterates find({}).
FileCollection below answers those two calls from a .bson file (as written by
mongodump), decoding documents with bson.decode_file_iter, pymongo's own BSON
decoder, so the library's unmodified extraction (walk, type counts,
post-processing) runs on exactly what a cursor would have yielded.

The clock starts before the file is opened and stops when the schema is
complete: interpreter start and imports (pandas, scipy, ete4: ~2 s) are not
counted.

Prints one JSON line: {"docs": N, "fields": F, "seconds": S, "cpuSeconds": C}
(seconds: wall clock; cpuSeconds: user + system time of the process over the
same span).
"""

import json
import logging
import struct
import sys
import time

import bson
from pymongo_schema.extract import extract_collection_schema

# Its progress line ("scanned N documents") would clutter the output.
logging.getLogger("pymongo_schema").propagate = False


class FileCollection:
    """The part of pymongo.collection.Collection that pymongo-schema uses."""

    def __init__(self, path):
        self.path = path
        self.yielded = 0

    def estimated_document_count(self):
        # A server answers from metadata; here, hop over the length prefixes.
        count = 0
        with open(self.path, "rb") as f:
            while True:
                head = f.read(4)
                if len(head) < 4:
                    return count
                (length,) = struct.unpack("<i", head)
                f.seek(length - 4, 1)
                count += 1

    def find(self, _filter):
        with open(self.path, "rb") as f:
            for doc in bson.decode_file_iter(f):
                self.yielded += 1
                yield doc


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: python pymongo_schema_run.py FILE")
    collection = FileCollection(sys.argv[1])
    cpu_start = time.process_time()
    start = time.perf_counter()
    schema = extract_collection_schema(collection)
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    if collection.yielded != schema["count"]:
        sys.exit(f"read {collection.yielded} documents but counted {schema['count']}")
    print(json.dumps({
        "docs": collection.yielded,
        "fields": len(schema["object"]),
        "seconds": seconds,
        "cpuSeconds": cpu_seconds,
    }))


if __name__ == "__main__":
    main()
