"""TEST FAKE of Hugging Face ``datasets.Dataset`` (datasets/arrow_dataset.py), the dataset type verifiers
v0 environments take: ``Dataset.from_list(rows)``, ``column_names``, ``len``, ``ds[i]`` (a row dict),
``ds["column"]`` (a list), iteration over rows. Rows are copied in, as arrow storage would."""

from __future__ import annotations

import copy
from typing import Any, Dict, Iterator, List, Union


class Dataset:
    def __init__(self, rows: List[Dict[str, Any]]) -> None:
        columns: List[str] = []
        for row in rows:
            for name in row:
                if name not in columns:
                    columns.append(name)
        self._rows = [{name: copy.deepcopy(row.get(name)) for name in columns} for row in rows]
        self.column_names = columns

    @classmethod
    def from_list(cls, mapping: List[Dict[str, Any]]) -> "Dataset":
        return cls(list(mapping))

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, key: Union[int, str]) -> Any:
        if isinstance(key, str):
            return [copy.deepcopy(row[key]) for row in self._rows]
        return copy.deepcopy(self._rows[key])

    def __iter__(self) -> Iterator[Dict[str, Any]]:
        return (copy.deepcopy(row) for row in self._rows)
