import unittest


class TestCases(unittest.TestCase):
    def test_basic_grouping(self):
        self.assertEqual(
            group_by_initial(["bob", "alice", "Bea", "anna"]),
            {"A": ["alice", "anna"], "B": ["Bea", "bob"]},
        )

    def test_keys_are_alphabetical(self):
        result = group_by_initial(["zed", "mia", "amir", "Kai"])
        self.assertEqual(list(result), ["A", "K", "M", "Z"])

    def test_whitespace_and_duplicates(self):
        self.assertEqual(group_by_initial(["  olga ", "olga", "Otto"]), {"O": ["olga", "Otto"]})
        self.assertEqual(group_by_initial(["\tIda", "  ivo"]), {"I": ["Ida", "ivo"]})

    def test_names_differing_in_case(self):
        self.assertEqual(group_by_initial(["eve", "Eve", "EVE"]), {"E": ["EVE", "Eve", "eve"]})

    def test_skips_blank_and_non_letters(self):
        self.assertEqual(group_by_initial(["", "   ", "42nd street", "_tmp", "Uma"]), {"U": ["Uma"]})

    def test_empty_input(self):
        self.assertEqual(group_by_initial([]), {})
