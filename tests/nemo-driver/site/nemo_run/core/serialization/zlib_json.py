"""Stand-in serializer (tests only): base64 of zlib of JSON."""
import base64
import json
import zlib


class ZlibJSONSerializer:
    def serialize(self, task):
        return base64.urlsafe_b64encode(zlib.compress(json.dumps(task.to_dict(), sort_keys=True).encode())).decode()

    def deserialize(self, s):
        return json.loads(zlib.decompress(base64.urlsafe_b64decode(s.encode())))
