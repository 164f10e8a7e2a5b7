import unittest


class TestCases(unittest.TestCase):
    def test_camel_case(self):
        self.assertEqual(to_camel("user_id_list"), "userIdList")

    def test_pascal_case(self):
        self.assertEqual(to_camel("user_id_list", upper_first=True), "UserIdList")

    def test_leading_underscores_kept(self):
        self.assertEqual(to_camel("_private_name"), "_privateName")
        self.assertEqual(to_camel("__dunder"), "__dunder")

    def test_case_is_normalised(self):
        self.assertEqual(to_camel("HTTP_status_CODE"), "httpStatusCode")

    def test_repeated_and_trailing_underscores(self):
        self.assertEqual(to_camel("a__b_"), "aB")
        self.assertEqual(to_camel("x"), "x")

    def test_no_words(self):
        self.assertEqual(to_camel("___"), "___")
        self.assertEqual(to_camel(""), "")
