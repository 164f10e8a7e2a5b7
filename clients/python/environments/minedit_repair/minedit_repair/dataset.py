"""Reading a minedit GRPO export (``minedit export --kind grpo``) into prompt rows. No verifiers import:
both the v1 taskset and the v0 ``load_environment`` read through here.

``dataset_path`` may be

- an export directory: ``OUT`` (holding exactly one export) or ``OUT/NAME`` (holding ``minedit-export.json``,
  the manifest, whose ``files`` name the data file of each split, relative to ``OUT``);
- one data file: JSONL (``.jsonl``/``.json``) or Parquet (``.parquet``, needs ``pyarrow``, which
  verifiers' ``datasets`` dependency brings).

Every ``--format`` of a grpo export works; the row shapes (src/export/format-*.ts):

=========  ==========================================  =====================================================
format     prompt                                      task id
=========  ==========================================  =====================================================
hf         ``prompt`` ([system, user] messages or text)  ``task_id``
openrlhf   ``input`` (messages or text)                  ``label``
verl       ``prompt`` (messages)                         ``extra_info.task_id``, ``reward_model.ground_truth``
=========  ==========================================  =====================================================

Any JSONL with ``prompt`` and ``task_id`` (``examples/demo_dataset.py --format jsonl``) works too. Where a
row names its task in several places they must agree. A task file (rows with ``corrupted``, what ``minedit
serve --tasks`` loads) is refused: its prompts are made by ``minedit export``.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple, Union

MANIFEST_FILE = "minedit-export.json"

Messages = List[Dict[str, Any]]


@dataclass(frozen=True)
class PromptRow:
    """One GRPO prompt: the task it is scored against, the prompt as the file has it, its id."""

    task_id: str
    prompt: Union[str, Messages]
    prompt_id: str

    def messages(self) -> Messages:
        """The prompt as chat messages (a text prompt becomes one user message)."""
        if isinstance(self.prompt, str):
            return [{"role": "user", "content": self.prompt}]
        return [dict(m) for m in self.prompt]

    def system_and_prompt(self) -> Tuple[Optional[str], Union[str, Messages]]:
        """``(system_prompt, prompt)`` for a v1 ``TaskData``: a leading system message becomes the system
        prompt and a lone user message its text, so every harness can take it (a harness that cannot add a
        system message folds it into a text prompt, which it cannot do for a message list)."""
        if isinstance(self.prompt, str):
            return None, self.prompt
        messages = self.messages()
        system = None
        if messages and messages[0].get("role") == "system" and isinstance(messages[0].get("content"), str):
            system = messages.pop(0)["content"]
        if len(messages) == 1 and messages[0].get("role") == "user" and isinstance(messages[0].get("content"), str):
            return system, messages[0]["content"]
        return system, messages


class DatasetError(ValueError):
    """``dataset_path`` is not a GRPO export (or a row of it is unusable); the message says which row."""


def read_rows(dataset_path: Optional[str], split: str = "train") -> List[PromptRow]:
    """The prompt rows of ``split`` of the export (or file) at ``dataset_path``; see the module doc."""
    if not dataset_path:
        raise DatasetError(
            "dataset_path is not set: point it at a minedit GRPO export "
            "(minedit export --kind grpo --format hf --tasks TASKS.jsonl --out DIR)"
        )
    path = os.path.expanduser(str(dataset_path))
    if os.path.isdir(path):
        return [row for file in _split_files(path, split) for row in _read_file(file)]
    if not os.path.exists(path):
        raise DatasetError(f"dataset_path {path}: no such file or directory")
    return list(_read_file(path))


def _split_files(directory: str, split: str) -> List[str]:
    manifest_path = os.path.join(directory, MANIFEST_FILE)
    if not os.path.exists(manifest_path):
        exports = sorted(
            name for name in os.listdir(directory) if os.path.isfile(os.path.join(directory, name, MANIFEST_FILE))
        )
        if len(exports) == 1:
            return _split_files(os.path.join(directory, exports[0]), split)
        if exports:
            raise DatasetError(f"{directory} holds several exports ({', '.join(exports)}): point dataset_path at one")
        raise DatasetError(f"{directory} is not a minedit export directory (no {MANIFEST_FILE})")
    with open(manifest_path, encoding="utf-8") as f:
        manifest = json.load(f)
    if manifest.get("kind") != "grpo":
        raise DatasetError(
            f"{manifest_path}: a {manifest.get('kind')!r} export; GRPO training reads a --kind grpo export"
        )
    # Manifest paths are relative to the output directory, the parent of OUT/NAME.
    root = os.path.dirname(os.path.abspath(directory))
    files = [os.path.join(root, entry["path"]) for entry in manifest.get("files", []) if entry.get("split") == split]
    if not files:
        splits = sorted({entry.get("split") for entry in manifest.get("files", [])})
        raise DatasetError(f"{manifest_path}: no {split!r} split (the export has {splits})")
    return files


def _read_file(path: str) -> List[PromptRow]:
    if path.endswith(".parquet"):
        try:
            import pyarrow.parquet as pq  # verifiers' `datasets` dependency brings pyarrow
        except ImportError as error:
            raise DatasetError(f"{path}: reading Parquet needs pyarrow (pip install pyarrow)") from error
        records = pq.read_table(path).to_pylist()
        return [_row(record, f"{path} row {i + 1}") for i, record in enumerate(records)]
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{number}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as error:
                raise DatasetError(f"{where}: not JSON ({error})") from None
            rows.append(_row(record, where))
    return rows


def _row(record: Any, where: str) -> PromptRow:
    if not isinstance(record, dict):
        raise DatasetError(f"{where}: a row must be a JSON object")
    if "corrupted" in record:
        raise DatasetError(
            f"{where}: this is a task file (rows with 'corrupted'); make a GRPO export of it first: "
            "minedit export --kind grpo --format hf --tasks TASKS.jsonl --out DIR"
        )
    prompt = record.get("prompt", record.get("input"))
    if isinstance(prompt, list):
        if not all(isinstance(m, dict) and "role" in m for m in prompt):
            raise DatasetError(f"{where}: prompt messages need a role and a content")
    elif not isinstance(prompt, str) or not prompt:
        raise DatasetError(f"{where}: no prompt (the 'prompt' or 'input' column)")
    return PromptRow(task_id=_task_id(record, where), prompt=prompt, prompt_id=_prompt_id(record, prompt))


def _task_id(record: Dict[str, Any], where: str) -> str:
    extra, reward_model = record.get("extra_info"), record.get("reward_model")
    found = {
        "task_id": record.get("task_id"),
        "label": record.get("label"),
        "extra_info.task_id": extra.get("task_id") if isinstance(extra, dict) else None,
        "reward_model.ground_truth": reward_model.get("ground_truth") if isinstance(reward_model, dict) else None,
    }
    # Task ids may be integers in a task file (src/export/candidates.ts); the server's ids are strings.
    ids = {name: str(value) for name, value in found.items() if value is not None and value != ""}
    if not ids:
        raise DatasetError(f"{where}: no task id (task_id, label, extra_info.task_id or reward_model.ground_truth)")
    if len(set(ids.values())) > 1:
        raise DatasetError(f"{where}: the row names different tasks: {ids}")
    return next(iter(ids.values()))


def _prompt_id(record: Dict[str, Any], prompt: Union[str, Messages]) -> str:
    extra = record.get("extra_info")
    given = record.get("prompt_id") or (extra.get("prompt_id") if isinstance(extra, dict) else None)
    if isinstance(given, str) and given:
        return given
    # The export's prompt id (src/export/prompt.ts promptId): sha256 of the compact JSON messages.
    messages = [{"role": "user", "content": prompt}] if isinstance(prompt, str) else prompt
    canonical = [{"role": m.get("role"), "content": m.get("content")} for m in messages]
    text = json.dumps(canonical, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
