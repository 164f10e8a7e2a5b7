"""TEST FAKE: a small stand-in for the pydantic v2 ``BaseModel`` behaviour the v1 classes rely on
(Debian's python3 has no pydantic 2): fields from class annotations, defaults, nested-model validation
from dicts, ``model_validate`` / ``model_dump`` / ``model_copy``, ``model_fields``, frozen models, and the
three ``extra`` policies:

- ``"ignore"`` (pydantic's default; verifiers/v1/task.py ``TaskData`` @ a60a606): unknown keys are
  dropped, which is why a task-specific field must be declared to survive the env server's re-validation;
- ``"forbid"``: pydantic_config ``BaseConfig`` (PrimeIntellect-ai/pydantic-config src/pydantic_config/
  cli.py ``model_config = ConfigDict(extra="forbid")``), the base of ``TaskConfig`` / ``TasksetConfig``: an
  unknown TOML key is an error;
- ``"allow"``: ``WireTaskData``.

Type checks follow pydantic's lax mode where it matters here: ``str`` takes only strings (an integer task
id is an error), ``float`` takes ints, unions try their arms in order, ``X | None`` takes None.
"""

from __future__ import annotations

import copy
import types
import typing
from pathlib import Path
from typing import Any, ClassVar, Dict, Literal, Tuple, Union, get_args, get_origin


class ValidationError(ValueError):
    """pydantic's ValidationError (a ValueError subclass there too)."""


_MISSING = object()


class FieldInfo:
    def __init__(self, annotation: Any, default: Any = _MISSING, default_factory: Any = None, exclude: bool = False):
        self.annotation = annotation
        self.default = default
        self.default_factory = default_factory
        self.exclude = exclude

    def is_required(self) -> bool:
        return self.default is _MISSING and self.default_factory is None

    def make_default(self) -> Any:
        if self.default_factory is not None:
            return self.default_factory()
        return copy.deepcopy(self.default)


def Field(default: Any = _MISSING, *, default_factory: Any = None, exclude: bool = False) -> Any:  # noqa: N802
    return FieldInfo(None, default, default_factory, exclude)


class BaseModel:
    """See the module doc. Subclasses set ``__extra__`` and ``__frozen__``."""

    __extra__: ClassVar[str] = "ignore"
    __frozen__: ClassVar[bool] = False
    model_fields: ClassVar[Dict[str, FieldInfo]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._fields_resolved = False

    @classmethod
    def _fields(cls) -> Dict[str, FieldInfo]:
        # Resolved lazily: annotations may name classes defined later in the module (forward refs).
        if not cls.__dict__.get("_fields_resolved", False):
            hints = typing.get_type_hints(cls, include_extras=False)
            fields: Dict[str, FieldInfo] = {}
            for klass in reversed(cls.__mro__):
                for name in getattr(klass, "__annotations__", {}):
                    hint = hints.get(name)
                    if name.startswith("_") or hint is None or get_origin(hint) is ClassVar:
                        continue
                    raw = cls.__dict__.get(name, _MISSING) if klass is cls else getattr(cls, name, _MISSING)
                    if isinstance(raw, FieldInfo):
                        fields[name] = FieldInfo(hint, raw.default, raw.default_factory, raw.exclude)
                    else:
                        fields[name] = FieldInfo(hint, raw)
            cls.model_fields = fields
            cls._fields_resolved = True
        return cls.model_fields

    def __init__(self, **data: Any) -> None:
        fields = type(self)._fields()
        values: Dict[str, Any] = {}
        for name, info in fields.items():
            if name in data:
                values[name] = _coerce(info.annotation, data.pop(name), f"{type(self).__name__}.{name}")
            elif info.is_required():
                raise ValidationError(f"{type(self).__name__}.{name}: Field required")
            else:
                values[name] = info.make_default()
        extra: Dict[str, Any] = {}
        if data:
            if self.__extra__ == "forbid":
                raise ValidationError(f"{type(self).__name__}: Extra inputs are not permitted: {sorted(data)}")
            if self.__extra__ == "allow":
                extra = dict(data)
        object.__setattr__(self, "__dict__", {**values, **extra})
        object.__setattr__(self, "_extra_names", tuple(extra))

    def __setattr__(self, name: str, value: Any) -> None:
        if self.__frozen__:
            raise ValidationError(f"{type(self).__name__} is frozen: cannot set {name}")
        object.__setattr__(self, name, value)

    @property
    def model_extra(self) -> Dict[str, Any]:
        return {name: self.__dict__[name] for name in self._extra_names}

    @classmethod
    def model_validate(cls, data: Any) -> "BaseModel":
        if isinstance(data, cls):
            return data
        if not isinstance(data, typing.Mapping):
            raise ValidationError(f"{cls.__name__}: Input should be a valid dictionary, got {type(data).__name__}")
        return cls(**dict(data))

    def model_dump(self, mode: str = "python", exclude_none: bool = False) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        fields = type(self)._fields()
        for name, value in self.__dict__.items():
            if name == "_extra_names" or (name in fields and fields[name].exclude):
                continue
            if exclude_none and value is None:
                continue
            out[name] = _dump(value, mode, exclude_none)
        return out

    def model_copy(self, update: Dict[str, Any] | None = None) -> "BaseModel":
        clone = copy.copy(self)
        object.__setattr__(clone, "__dict__", {**self.__dict__, **(update or {})})
        return clone

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self.model_dump() == other.model_dump()  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items() if k != "_extra_names")
        return f"{type(self).__name__}({body})"


def _dump(value: Any, mode: str, exclude_none: bool) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode, exclude_none)
    if isinstance(value, (list, tuple)):
        return [_dump(v, mode, exclude_none) for v in value]
    if isinstance(value, dict):
        return {k: _dump(v, mode, exclude_none) for k, v in value.items()}
    if mode == "json" and isinstance(value, Path):
        return str(value)
    return value


_UNION_TYPES: Tuple[Any, ...] = (Union, types.UnionType)


def _coerce(annotation: Any, value: Any, where: str) -> Any:
    origin = get_origin(annotation)
    if annotation is Any or isinstance(annotation, typing.TypeVar):
        return value
    if origin is typing.Annotated:
        return _coerce(get_args(annotation)[0], value, where)
    if origin in _UNION_TYPES:
        arms = get_args(annotation)
        if value is None and type(None) in arms:
            return None
        errors = []
        for arm in arms:
            if arm is type(None):
                continue
            try:
                return _coerce(arm, value, where)
            except ValidationError as error:
                errors.append(str(error))
        raise ValidationError(f"{where}: no union arm takes {value!r}: {errors}")
    if origin is Literal:
        if value in get_args(annotation):
            return value
        raise ValidationError(f"{where}: Input should be one of {get_args(annotation)}, got {value!r}")
    if origin in (list, typing.List):
        if not isinstance(value, (list, tuple)):
            raise ValidationError(f"{where}: Input should be a valid list")
        (item,) = get_args(annotation) or (Any,)
        return [_coerce(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin in (dict, typing.Dict) or annotation is dict:
        if not isinstance(value, typing.Mapping):
            raise ValidationError(f"{where}: Input should be a valid dictionary")
        args = get_args(annotation)
        return {k: _coerce(args[1], v, f"{where}[{k!r}]") for k, v in value.items()} if args else dict(value)
    if annotation is list:
        return list(value)
    if annotation is type(None):
        if value is None:
            return None
        raise ValidationError(f"{where}: Input should be None")
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        if isinstance(value, annotation):
            return value
        if isinstance(value, BaseModel):
            # pydantic revalidates another model's data into the declared type (from_attributes off: via dump).
            value = value.model_dump()
        return annotation.model_validate(value)
    if annotation is str:
        if isinstance(value, str):
            return value
        raise ValidationError(f"{where}: Input should be a valid string, got {type(value).__name__}")
    if annotation is bool:
        if isinstance(value, bool):
            return value
        raise ValidationError(f"{where}: Input should be a valid boolean")
    if annotation is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        raise ValidationError(f"{where}: Input should be a valid integer, got {value!r}")
    if annotation is float:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        raise ValidationError(f"{where}: Input should be a valid number, got {value!r}")
    if annotation is Path:
        return Path(value)
    if isinstance(annotation, type):
        if isinstance(value, annotation):
            return value
        raise ValidationError(f"{where}: Input should be an instance of {annotation.__name__}")
    return value
