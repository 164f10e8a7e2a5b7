import unittest


class TestCases(unittest.TestCase):
    def test_flat_changes(self):
        old = {"debug": False, "port": 80, "name": "svc"}
        new = {"port": 8080, "name": "svc", "workers": 4}
        expected = {"added": ["workers"], "removed": ["debug"], "changed": ["port"]}
        self.assertEqual(diff_config(old, new), expected)

    def test_identical(self):
        config = {"a": 1, "b": {"c": [1, 2]}}
        self.assertEqual(diff_config(config, config), {"added": [], "removed": [], "changed": []})

    def test_nested_sections(self):
        old = {"db": {"host": "x", "port": 5432}, "cache": {"ttl": 60}}
        new = {"db": {"host": "y", "port": 5432, "pool": 5}, "cache": {"ttl": 60}}
        self.assertEqual(diff_config(old, new), {"added": ["db.pool"], "removed": [], "changed": ["db.host"]})

    def test_section_replaced_by_value(self):
        old = {"log": {"level": "info"}}
        new = {"log": "stdout"}
        self.assertEqual(diff_config(old, new), {"added": [], "removed": [], "changed": ["log"]})

    def test_sorted_depth_first(self):
        old = {"b": {"z": 1, "a": 1}, "a": 1}
        new = {"b": {"z": 2, "a": 2, "m": 0}, "a": 2, "c": 3}
        self.assertEqual(
            diff_config(old, new),
            {"added": ["b.m", "c"], "removed": [], "changed": ["a", "b.a", "b.z"]},
        )

    def test_empty_side(self):
        self.assertEqual(diff_config({}, {"x": {"y": 1}}), {"added": ["x"], "removed": [], "changed": []})
