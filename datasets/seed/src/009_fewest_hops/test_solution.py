import unittest


class TestCases(unittest.TestCase):
    def test_chain(self):
        graph = {"a": ["b"], "b": ["c"], "c": ["d"]}
        self.assertEqual(fewest_hops(graph, "a", "d"), ["a", "b", "c", "d"])

    def test_shortcut_is_preferred(self):
        graph = {"a": ["b", "x"], "b": ["c"], "c": ["goal"], "x": ["goal"]}
        self.assertEqual(fewest_hops(graph, "a", "goal"), ["a", "x", "goal"])

    def test_tie_follows_neighbour_order(self):
        graph = {1: [3, 2], 2: [4], 3: [4]}
        self.assertEqual(fewest_hops(graph, 1, 4), [1, 3, 4])

    def test_unreachable(self):
        graph = {"a": ["b"], "b": ["a"], "c": ["a"]}
        self.assertEqual(fewest_hops(graph, "a", "c"), [])

    def test_links_are_directed(self):
        graph = {"a": ["b"]}
        self.assertEqual(fewest_hops(graph, "a", "b"), ["a", "b"])
        self.assertEqual(fewest_hops(graph, "b", "a"), [])

    def test_start_is_goal(self):
        self.assertEqual(fewest_hops({}, "home", "home"), ["home"])

    def test_cycles_terminate(self):
        graph = {"a": ["b"], "b": ["c", "a"], "c": ["b", "d"], "d": []}
        self.assertEqual(fewest_hops(graph, "a", "d"), ["a", "b", "c", "d"])
