import unittest


class TestCases(unittest.TestCase):
    def test_numeric_comparison(self):
        self.assertEqual(latest_version(["v1.9.9", "v1.10.0", "v1.2.30"]), "v1.10.0")

    def test_major_wins(self):
        self.assertEqual(latest_version(["1.99.99", "2.0.0", "0.100.0"]), "2.0.0")

    def test_invalid_tags_are_ignored(self):
        tags = ["release", "v3.0", "v4.0.0-beta", "v3.1.x", "v2.5.1", "vv9.9.9"]
        self.assertEqual(latest_version(tags), "v2.5.1")
        self.assertIsNone(latest_version(["nightly", "v1"]))

    def test_whitespace_and_capital_v(self):
        self.assertEqual(latest_version(["  V0.2.0 ", "0.1.9"]), "V0.2.0")

    def test_first_of_equal_versions_wins(self):
        self.assertEqual(latest_version(["1.0.0", "v1.0.0", "v0.9.0"]), "1.0.0")

    def test_patch_level(self):
        self.assertEqual(latest_version(["v0.0.1", "v0.0.10", "v0.0.9"]), "v0.0.10")
        self.assertIsNone(latest_version([]))
