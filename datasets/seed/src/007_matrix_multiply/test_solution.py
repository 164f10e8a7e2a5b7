import unittest


class TestCases(unittest.TestCase):
    def test_square(self):
        self.assertEqual(matrix_multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]), [[19, 22], [43, 50]])

    def test_rectangular(self):
        self.assertEqual(matrix_multiply([[1, 2, 3], [4, 5, 6]], [[1], [0], [-1]]), [[-2], [-2]])

    def test_row_times_column(self):
        self.assertEqual(matrix_multiply([[2, 3]], [[4], [5]]), [[23]])
        self.assertEqual(matrix_multiply([[4], [5]], [[2, 3]]), [[8, 12], [10, 15]])

    def test_identity(self):
        matrix = [[2, -1, 0], [1, 3, 5], [0, 0, 7]]
        identity = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
        self.assertEqual(matrix_multiply(matrix, identity), matrix)
        self.assertEqual(matrix_multiply(identity, matrix), matrix)

    def test_incompatible_shapes(self):
        with self.assertRaises(ValueError):
            matrix_multiply([[1, 2]], [[1, 2]])

    def test_empty_or_ragged(self):
        with self.assertRaises(ValueError):
            matrix_multiply([], [[1]])
        with self.assertRaises(ValueError):
            matrix_multiply([[1, 2], [3]], [[1], [2]])
        with self.assertRaises(ValueError):
            matrix_multiply([[1, 2]], [[1, 2], [3]])
