import unittest


class TestCases(unittest.TestCase):
    def test_zero(self):
        self.assertEqual(format_duration(0), "0s")

    def test_seconds_and_minutes(self):
        self.assertEqual(format_duration(59), "59s")
        self.assertEqual(format_duration(60), "1m")
        self.assertEqual(format_duration(61), "1m 1s")

    def test_hours_skip_zero_units(self):
        self.assertEqual(format_duration(3725), "1h 2m 5s")
        self.assertEqual(format_duration(7203), "2h 3s")

    def test_days(self):
        self.assertEqual(format_duration(86400), "1d")
        self.assertEqual(format_duration(90061), "1d 1h 1m 1s")
        self.assertEqual(format_duration(3 * 86400 + 59 * 60), "3d 59m")

    def test_fractions_are_truncated(self):
        self.assertEqual(format_duration(12.9), "12s")
        self.assertEqual(format_duration(0.5), "0s")

    def test_negative(self):
        with self.assertRaises(ValueError):
            format_duration(-1)
