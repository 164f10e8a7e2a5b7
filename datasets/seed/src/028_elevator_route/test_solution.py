import unittest


class TestCases(unittest.TestCase):
    def test_going_up_by_default(self):
        self.assertEqual(elevator_route(5, [3, 8, 6, 1]), [6, 8, 3, 1])

    def test_going_down(self):
        self.assertEqual(elevator_route(5, [3, 8, 6, 1], going_up=False), [3, 1, 6, 8])

    def test_current_floor_served_first(self):
        self.assertEqual(elevator_route(4, [7, 4, 2]), [4, 7, 2])

    def test_duplicates_collapse(self):
        self.assertEqual(elevator_route(0, [2, 2, 1, 2]), [1, 2])

    def test_only_floors_below(self):
        self.assertEqual(elevator_route(10, [2, 4]), [4, 2])

    def test_no_requests(self):
        self.assertEqual(elevator_route(3, []), [])
