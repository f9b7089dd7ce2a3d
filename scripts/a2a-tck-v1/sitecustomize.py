# Loaded by scripts/a2a-tck.sh --v1 (PYTHONPATH) before the A2A 1.0 kit: Debian stands in for the
# kit's Python dependencies, and two of them are older or missing there (docs/a2a-conformance.md).
# Debian's protobuf 4.21 lacks runtime_version (protobuf >= 5.26); the kit's generated code only
# calls its version check, which this stands in for.
import sys, types, enum
import google.protobuf as _gp
_m = types.ModuleType("google.protobuf.runtime_version")
class Domain(enum.Enum):
    PUBLIC = 1
    GOOGLE_INTERNAL = 2
_m.Domain = Domain
_m.ValidateProtobufRuntimeVersion = lambda *a, **k: None
sys.modules["google.protobuf.runtime_version"] = _m
_gp.runtime_version = _m

# Debian packages no googleapis-common-protos: the kit's a2a.proto imports three google/api
# files only for options (HTTP annotations, field behaviour); empty files of those names let
# its descriptor load (the options stay unparsed).
from google.protobuf import descriptor_pb2 as _dpb, descriptor_pool as _pool
_api = types.ModuleType("google.api")
_api.__path__ = []
sys.modules["google.api"] = _api
for _name in ("annotations", "client", "field_behavior", "http"):
    _fdp = _dpb.FileDescriptorProto(name=f"google/api/{_name}.proto", package="google.api")
    try:
        _pool.Default().Add(_fdp)
    except Exception:
        pass
    _mod = types.ModuleType(f"google.api.{_name}_pb2")
    sys.modules[f"google.api.{_name}_pb2"] = _mod
    setattr(_api, f"{_name}_pb2", _mod)
