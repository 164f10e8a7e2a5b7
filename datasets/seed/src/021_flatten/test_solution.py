import unittest


class TestCases(unittest.TestCase):
    def test_fully_flattens(self):
        self.assertEqual(flatten([1, [2, [3, [4]]], 5]), [1, 2, 3, 4, 5])

    def test_depth_one(self):
        self.assertEqual(flatten([1, [2, [3, [4]]]], max_depth=1), [1, 2, [3, [4]]])

    def test_depth_two(self):
        self.assertEqual(flatten([1, [2, [3, [4]]]], max_depth=2), [1, 2, 3, [4]])

    def test_depth_zero_copies_top_level(self):
        nested = [1, [2]]
        result = flatten(nested, max_depth=0)
        self.assertEqual(result, [1, [2]])
        self.assertIsNot(result, nested)

    def test_strings_and_dicts_are_atoms(self):
        self.assertEqual(flatten(["ab", ("c", ["d"]), {"k": [1]}]), ["ab", "c", "d", {"k": [1]}])

    def test_empty_containers_vanish(self):
        self.assertEqual(flatten([[], [[]], (), 0]), [0])
        self.assertEqual(flatten([]), [])
