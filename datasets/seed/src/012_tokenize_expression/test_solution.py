import unittest


class TestCases(unittest.TestCase):
    def test_simple_sum(self):
        self.assertEqual(tokenize_expression("1 + 2"), [("NUMBER", "1"), ("OP", "+"), ("NUMBER", "2")])

    def test_names_and_parentheses(self):
        self.assertEqual(
            tokenize_expression("rate*(x_1-3.5)"),
            [
                ("NAME", "rate"),
                ("OP", "*"),
                ("PAREN", "("),
                ("NAME", "x_1"),
                ("OP", "-"),
                ("NUMBER", "3.5"),
                ("PAREN", ")"),
            ],
        )

    def test_power_is_one_token(self):
        self.assertEqual(
            tokenize_expression("2**10%7"),
            [("NUMBER", "2"), ("OP", "**"), ("NUMBER", "10"), ("OP", "%"), ("NUMBER", "7")],
        )

    def test_leading_dot_number(self):
        self.assertEqual(tokenize_expression(".5/_k"), [("NUMBER", ".5"), ("OP", "/"), ("NAME", "_k")])

    def test_second_dot_starts_new_number(self):
        self.assertEqual(tokenize_expression("1.2.3"), [("NUMBER", "1.2"), ("NUMBER", ".3")])

    def test_empty_and_blank(self):
        self.assertEqual(tokenize_expression(""), [])
        self.assertEqual(tokenize_expression(" \t "), [])

    def test_unknown_character(self):
        with self.assertRaises(ValueError):
            tokenize_expression("4 $ 5")
