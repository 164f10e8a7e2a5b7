import unittest


class TestCases(unittest.TestCase):
    def test_strong_password(self):
        self.assertEqual(password_issues("Tr0ub4dor&3"), [])

    def test_everything_missing(self):
        self.assertEqual(
            password_issues(""),
            ["too short", "no digit", "no uppercase", "no lowercase", "no symbol"],
        )

    def test_length_boundary(self):
        self.assertEqual(password_issues("Ab1!efgh"), [])
        self.assertEqual(password_issues("Ab1!efg"), ["too short"])
        self.assertEqual(password_issues("Ab1!efg", min_length=7), [])

    def test_whitespace_is_not_a_symbol(self):
        self.assertEqual(password_issues("Abc 1234"), ["no symbol", "contains whitespace"])

    def test_only_lowercase(self):
        self.assertEqual(password_issues("correcthorse"), ["no digit", "no uppercase", "no symbol"])

    def test_symbols_and_digits_only(self):
        self.assertEqual(password_issues("12345678!!"), ["no uppercase", "no lowercase"])
