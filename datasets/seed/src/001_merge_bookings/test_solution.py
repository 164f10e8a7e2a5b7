import unittest


class TestCases(unittest.TestCase):
    def test_disjoint_slots_are_sorted(self):
        slots = ["13:00-14:00", "16:45-17:50", "09:00-10:00"]
        self.assertEqual(merge_bookings(slots), ["09:00-10:00", "13:00-14:00", "16:45-17:50"])

    def test_overlapping_slots_merge(self):
        self.assertEqual(merge_bookings(["09:00-10:30", "10:00-11:00"]), ["09:00-11:00"])
        slots = ["11:30-13:00", "09:00-10:00", "11:00-12:00"]
        self.assertEqual(merge_bookings(slots), ["09:00-10:00", "11:00-13:00"])

    def test_touching_slots_merge(self):
        self.assertEqual(merge_bookings(["10:00-10:15", "09:00-10:00"]), ["09:00-10:15"])

    def test_contained_slots_disappear(self):
        slots = ["08:00-12:00", "09:00-09:30", "11:59-12:00", "12:01-12:30"]
        self.assertEqual(merge_bookings(slots), ["08:00-12:00", "12:01-12:30"])
        slots = ["09:00-10:00", "11:00-13:00", "11:30-12:00"]
        self.assertEqual(merge_bookings(slots), ["09:00-10:00", "11:00-13:00"])

    def test_spaces_are_allowed(self):
        self.assertEqual(merge_bookings([" 07:05 - 07:45 ", "07:40-08:00"]), ["07:05-08:00"])

    def test_empty_input(self):
        self.assertEqual(merge_bookings([]), [])

    def test_invalid_slots_raise(self):
        with self.assertRaises(ValueError):
            merge_bookings(["10:00-09:00"])
        with self.assertRaises(ValueError):
            merge_bookings(["09:00-10:00", "11:00-11:00"])
