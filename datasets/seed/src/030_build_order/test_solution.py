import unittest


class TestCases(unittest.TestCase):
    def test_chain(self):
        self.assertEqual(build_order({"deploy": ["test"], "test": ["build"]}), ["build", "test", "deploy"])

    def test_alphabetical_among_ready(self):
        deps = {"app": ["lib", "assets"], "lib": [], "assets": [], "docs": []}
        self.assertEqual(build_order(deps), ["assets", "docs", "lib", "app"])

    def test_diamond(self):
        deps = {"d": ["b", "c"], "b": ["a"], "c": ["a"]}
        self.assertEqual(build_order(deps), ["a", "b", "c", "d"])

    def test_ready_task_unlocked_later_can_come_first(self):
        deps = {"z": [], "b": ["a"], "y": ["z"]}
        self.assertEqual(build_order(deps), ["a", "b", "z", "y"])

    def test_duplicate_prerequisites(self):
        self.assertEqual(build_order({"b": ["a", "a"]}), ["a", "b"])

    def test_cycle(self):
        with self.assertRaises(ValueError):
            build_order({"a": ["b"], "b": ["c"], "c": ["a"], "d": []})
        with self.assertRaises(ValueError):
            build_order({"self": ["self"]})

    def test_empty(self):
        self.assertEqual(build_order({}), [])
