"""Conversions between the plain types of :mod:`minedit_client.types` and the generated protobuf messages,
shared by the synchronous and the asynchronous client."""

from __future__ import annotations

from dataclasses import asdict, is_dataclass
from typing import Any, Mapping, Optional, Union

from ._gen.minedit.v1 import reward_pb2 as pb
from .types import RewardComponents, RewardOverride, Rollout, RolloutResult, Task, Timings

_VARIANTS = {
    "full": pb.REWARD_VARIANT_FULL,
    "correctness_only": pb.REWARD_VARIANT_CORRECTNESS_ONLY,
    "edit_only": pb.REWARD_VARIANT_EDIT_ONLY,
    "edit_plus_cc": pb.REWARD_VARIANT_EDIT_PLUS_CC,
}
_SCOPES = {"program": pb.DISTANCE_SCOPE_PROGRAM, "function_body": pb.DISTANCE_SCOPE_FUNCTION_BODY}

RolloutLike = Union[Rollout, Mapping[str, Any]]
OverrideLike = Union[RewardOverride, Mapping[str, Any], None]


def _tests(tests: Mapping[str, Any]) -> "pb.Tests":
    style = tests.get("style")
    if style == "unittest":
        return pb.Tests(unittest=pb.UnittestTests(code=tests["code"]))
    if style == "assert":
        return pb.Tests(**{"assert": pb.AssertTests(code=tests["code"])})
    if style == "stdio":
        message = pb.Tests(
            stdio=pb.StdioTests(cases=[pb.StdioCase(input=c["input"], output=c["output"]) for c in tests["cases"]])
        )
        if tests.get("float_tolerance") is not None:
            message.stdio.float_tolerance = float(tests["float_tolerance"])
        return message
    raise ValueError(f'task.tests.style: expected "unittest", "assert" or "stdio", got {style!r}')


def _task(task: Union[Task, Mapping[str, Any]]) -> "pb.Task":
    if is_dataclass(task):
        task = asdict(task)
    message = pb.Task(
        corrupted=task["corrupted"],
        gold=task["gold"],
        tests=_tests(task["tests"]),
        entry_point=task.get("entry_point", "") or "",
    )
    if task.get("runtime") is not None:
        message.runtime = str(task["runtime"])
    return message


def rollout_message(rollout: RolloutLike) -> "pb.Rollout":
    """A Rollout message from a :class:`Rollout` or a mapping with the same keys."""
    if isinstance(rollout, Rollout):
        fields: Mapping[str, Any] = {
            "id": rollout.id,
            "completion": rollout.completion,
            "task_id": rollout.task_id,
            "task": rollout.task,
            "group_id": rollout.group_id,
        }
    else:
        fields = rollout
    message = pb.Rollout(id=str(fields["id"]), completion=fields["completion"], group_id=fields.get("group_id") or "")
    task_id, task = fields.get("task_id"), fields.get("task")
    if (task_id is None) == (task is None):
        raise ValueError(f"rollout {fields['id']!r}: give exactly one of task_id and task")
    if task_id is not None:
        message.task_id = str(task_id)
    else:
        message.task.CopyFrom(_task(task))
    return message


def override_message(override: OverrideLike) -> Optional["pb.RewardOverride"]:
    if override is None:
        return None
    values = asdict(override) if is_dataclass(override) else dict(override)
    message = pb.RewardOverride()
    for key, value in values.items():
        if value is None:
            continue
        if key == "variant":
            if value not in _VARIANTS:
                raise ValueError(f"reward_override.variant: expected one of {sorted(_VARIANTS)}, got {value!r}")
            message.variant = _VARIANTS[value]
        elif key == "scope":
            if value not in _SCOPES:
                raise ValueError(f"reward_override.scope: expected one of {sorted(_SCOPES)}, got {value!r}")
            message.scope = _SCOPES[value]
        elif key in ("lambda_exec", "lambda_edit", "lambda_cc", "failure_reward"):
            setattr(message, key, float(value))
        else:
            raise ValueError(f"reward_override: unknown field {key!r}")
    return message


def result_from_message(message: "pb.RolloutResult") -> RolloutResult:
    components = None
    if message.HasField("components"):
        c = message.components
        components = RewardComponents(
            d_model=c.d_model,
            d_gold=c.d_gold,
            excess=c.excess,
            added_cc=c.added_cc if c.HasField("added_cc") else None,
        )
    t = message.timings
    return RolloutResult(
        id=message.id,
        reward=message.reward if message.HasField("reward") else None,
        verdict=pb.Verdict.Name(message.verdict).removeprefix("VERDICT_"),
        components=components,
        tests_passed=message.tests_passed,
        tests_total=message.tests_total,
        detail=message.detail,
        cached=message.cached,
        reward_version=message.reward_version,
        group_id=message.group_id,
        timings=Timings(
            queue_ms=t.queue_ms, metrics_ms=t.metrics_ms, execution_ms=t.execution_ms, total_ms=t.total_ms
        ),
    )


# --- grpc.health.v1, encoded by hand ------------------------------------------------------------------
# HealthCheckRequest {string service = 1;} and HealthCheckResponse {ServingStatus status = 1;} are two
# one-field messages. Encoding them here instead of generating stubs keeps minedit_client from registering
# grpc.health.v1 descriptors that would clash with grpcio-health-checking's in the same process.

HEALTH_CHECK_METHOD = "/grpc.health.v1.Health/Check"
_SERVING_STATUS = {0: "UNKNOWN", 1: "SERVING", 2: "NOT_SERVING", 3: "SERVICE_UNKNOWN"}


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def encode_health_request(service: str) -> bytes:
    data = service.encode("utf-8")
    return b"\x0a" + _varint(len(data)) + data if data else b""


def decode_health_response(data: bytes) -> str:
    """The ServingStatus name in a HealthCheckResponse (unknown fields skipped, as protobuf does)."""
    status, i = 0, 0

    def read_varint() -> int:
        nonlocal i
        shift = result = 0
        while True:
            byte = data[i]
            i += 1
            result |= (byte & 0x7F) << shift
            shift += 7
            if not byte & 0x80:
                return result

    while i < len(data):
        key = read_varint()
        field, wire = key >> 3, key & 7
        if wire == 0:
            value = read_varint()
            if field == 1:
                status = value
        elif wire == 2:
            i += read_varint()
        elif wire == 1:
            i += 8
        elif wire == 5:
            i += 4
        else:
            raise ValueError(f"malformed HealthCheckResponse (wire type {wire})")
    return _SERVING_STATUS.get(status, str(status))
