import unittest


class TestCases(unittest.TestCase):
    def test_single_turn(self):
        self.assertEqual(rotate_grid([[1, 2, 3], [4, 5, 6]]), [[4, 1], [5, 2], [6, 3]])

    def test_half_turn(self):
        self.assertEqual(rotate_grid([[1, 2, 3], [4, 5, 6]], 2), [[6, 5, 4], [3, 2, 1]])

    def test_negative_turn_is_counter_clockwise(self):
        self.assertEqual(rotate_grid([[1, 2, 3], [4, 5, 6]], -1), [[3, 6], [2, 5], [1, 4]])

    def test_full_turn_returns_fresh_copy(self):
        grid = [["a", "b"], ["c", "d"]]
        rotated = rotate_grid(grid, 4)
        self.assertEqual(rotated, grid)
        rotated[0][0] = "z"
        self.assertEqual(grid, [["a", "b"], ["c", "d"]])

    def test_input_not_modified(self):
        grid = [[1, 2], [3, 4], [5, 6]]
        self.assertEqual(rotate_grid(grid, 3), [[2, 4, 6], [1, 3, 5]])
        self.assertEqual(grid, [[1, 2], [3, 4], [5, 6]])

    def test_ragged_rows_raise(self):
        with self.assertRaises(ValueError):
            rotate_grid([[1, 2], [3]])

    def test_empty_grid(self):
        self.assertEqual(rotate_grid([]), [])
        self.assertEqual(rotate_grid([[7]], 1), [[7]])
