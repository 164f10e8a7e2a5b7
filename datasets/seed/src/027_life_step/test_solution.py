import unittest


class TestCases(unittest.TestCase):
    def test_blinker_oscillates(self):
        horizontal = {(1, 0), (1, 1), (1, 2)}
        vertical = {(0, 1), (1, 1), (2, 1)}
        self.assertEqual(life_step(horizontal), vertical)
        self.assertEqual(life_step(vertical), horizontal)

    def test_block_is_still(self):
        block = {(0, 0), (0, 1), (1, 0), (1, 1)}
        self.assertEqual(life_step(block), block)

    def test_lonely_cells_die(self):
        self.assertEqual(life_step({(5, 5)}), set())
        self.assertEqual(life_step({(0, 0), (0, 1)}), set())

    def test_glider_moves_diagonally(self):
        glider = {(0, 1), (1, 2), (2, 0), (2, 1), (2, 2)}
        cells = glider
        for _ in range(4):
            cells = life_step(cells)
        self.assertEqual(cells, {(row + 1, col + 1) for row, col in glider})

    def test_overcrowded_centre_dies(self):
        plus = {(0, 1), (1, 0), (1, 1), (1, 2), (2, 1)}
        self.assertEqual(life_step(plus), {(0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)})

    def test_input_unchanged_and_empty(self):
        cells = {(0, 0), (0, 1), (0, 2)}
        life_step(cells)
        self.assertEqual(cells, {(0, 0), (0, 1), (0, 2)})
        self.assertEqual(life_step(set()), set())
