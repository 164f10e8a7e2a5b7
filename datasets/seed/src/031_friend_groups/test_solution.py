import unittest


class TestCases(unittest.TestCase):
    def test_transitive_friendship(self):
        self.assertEqual(friend_groups([("ann", "bo"), ("bo", "cy")]), [["ann", "bo", "cy"]])

    def test_larger_groups_first(self):
        pairs = [("zoe", "yan"), ("ann", "bo"), ("xia", "zoe")]
        self.assertEqual(friend_groups(pairs), [["xia", "yan", "zoe"], ["ann", "bo"]])

    def test_equal_sizes_by_first_name(self):
        pairs = [("mo", "lu"), ("di", "ed"), ("gus", "fay")]
        self.assertEqual(friend_groups(pairs), [["di", "ed"], ["fay", "gus"], ["lu", "mo"]])

    def test_self_pair_is_singleton(self):
        self.assertEqual(friend_groups([("solo", "solo"), ("a", "b")]), [["a", "b"], ["solo"]])

    def test_repeated_and_reversed_pairs(self):
        pairs = [("a", "b"), ("b", "a"), ("a", "b"), ("c", "a")]
        self.assertEqual(friend_groups(pairs), [["a", "b", "c"]])

    def test_no_pairs(self):
        self.assertEqual(friend_groups([]), [])
