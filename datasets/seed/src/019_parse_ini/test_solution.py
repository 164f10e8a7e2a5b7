import unittest


class TestCases(unittest.TestCase):
    def test_two_sections(self):
        text = "[server]\nhost = example.org\nport=8080\n\n[client]\nretries = 3\n"
        self.assertEqual(
            parse_ini(text),
            {"server": {"host": "example.org", "port": "8080"}, "client": {"retries": "3"}},
        )

    def test_comments_case_and_spacing(self):
        text = "; settings\n  [ Paths ]  \n# home dir\n  Home =  /srv/app  \n"
        self.assertEqual(parse_ini(text), {"paths": {"home": "/srv/app"}})

    def test_value_may_contain_equals(self):
        self.assertEqual(parse_ini("[db]\nurl = user=admin;db=main"), {"db": {"url": "user=admin;db=main"}})

    def test_repeated_section_and_key(self):
        text = "[a]\nx = 1\n[b]\ny = 2\n[A]\nx = 3\nz =\n"
        self.assertEqual(parse_ini(text), {"a": {"x": "3", "z": ""}, "b": {"y": "2"}})

    def test_key_outside_section(self):
        with self.assertRaisesRegex(ValueError, "line 2"):
            parse_ini("# header\nname = value\n[s]\n")

    def test_line_without_equals(self):
        with self.assertRaisesRegex(ValueError, "line 3"):
            parse_ini("[s]\nok = 1\njust some words\n")

    def test_empty_section_name_and_empty_text(self):
        self.assertEqual(parse_ini(""), {})
        with self.assertRaisesRegex(ValueError, "line 1"):
            parse_ini("[  ]\n")
