import unittest


class TestCases(unittest.TestCase):
    def test_put_then_get(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        self.assertEqual(cache.get("a"), 1)
        self.assertEqual(cache.get("b"), 2)
        self.assertEqual(len(cache), 2)

    def test_least_recently_used_is_evicted(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.put("c", 3)
        self.assertEqual(cache.keys(), ["b", "c"])
        self.assertEqual(cache.get("a", "missing"), "missing")
        self.assertEqual(cache.evictions, 1)

    def test_get_refreshes_recency(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        self.assertEqual(cache.get("a"), 1)
        cache.put("c", 3)
        self.assertEqual(cache.keys(), ["a", "c"])

    def test_replacing_a_value_does_not_evict(self):
        cache = LRUCache(2)
        cache.put("a", 1)
        cache.put("b", 2)
        cache.put("a", 10)
        self.assertEqual(cache.keys(), ["b", "a"])
        self.assertEqual(cache.get("a"), 10)
        self.assertEqual(cache.evictions, 0)

    def test_capacity_one(self):
        cache = LRUCache(1)
        for key in "xyz":
            cache.put(key, key.upper())
        self.assertEqual(cache.keys(), ["z"])
        self.assertEqual(cache.get("z"), "Z")
        self.assertEqual(cache.evictions, 2)

    def test_invalid_capacity(self):
        with self.assertRaises(ValueError):
            LRUCache(0)
