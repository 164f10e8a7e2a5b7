"""The server's OpenRLHF remote reward endpoint with a real HTTP client (urllib), as OpenRLHF calls it:
POST JSON {"query", "prompts", "labels"} -> {"rewards", "scores", "extra_logs"}."""

import json
import unittest
import urllib.error
import urllib.request

from support import CORRUPTED, GOLD, INFRA_TASK_ID, OPENRLHF_URL, TASK_ID, TOKEN

PROMPT = "<|im_start|>user\nRepair the program.<|im_end|>\n<|im_start|>assistant\n"


def post(body, *, url=OPENRLHF_URL, token=TOKEN, raw=None):
    headers = {"Content-Type": "application/json"}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    data = raw if raw is not None else json.dumps(body).encode("utf-8")
    request = urllib.request.Request(url, data=data, headers=headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


class OpenRlhfEndpointTest(unittest.TestCase):
    def test_rewards_scores_and_extra_logs(self) -> None:
        status, body = post(
            {
                "query": [PROMPT + GOLD + "<|im_end|>", "<s>" + PROMPT + CORRUPTED, PROMPT + GOLD],
                "prompts": [PROMPT, PROMPT, PROMPT],
                "labels": [TASK_ID, TASK_ID, INFRA_TASK_ID],
            }
        )
        self.assertEqual(status, 200, body)
        # INFRA_ERROR: no scored sample of that task in the request, so reward.failureReward (and flagged).
        self.assertEqual(body["rewards"], [0.1, -0.2, -0.2])
        self.assertEqual(body["scores"], [1, 0, 0])
        self.assertEqual(body["verdicts"], ["PASSED", "FAILED_TESTS", "INFRA_ERROR"])
        logs = body["extra_logs"]
        self.assertEqual(logs["infra_error"], [0, 0, 1])
        self.assertEqual(logs["passed"], [1, 0, 0])
        self.assertEqual(logs["prompt_fallback"], [0, 0, 0])
        for key in ("excess", "d_model", "d_gold", "tests_passed", "tests_total"):
            self.assertEqual(len(logs[key]), 3, key)
        print(f"openrlhf: {body['rewards']}")

    def test_token_in_the_url_for_clients_without_headers(self) -> None:
        body = {"query": [PROMPT + GOLD], "prompts": [PROMPT], "labels": [TASK_ID]}
        status, answer = post(body, url=f"{OPENRLHF_URL}?token={TOKEN}", token=None)
        self.assertEqual((status, answer["rewards"]), (200, [0.1]))
        status, answer = post(body, token=None)
        self.assertEqual((status, answer["error"]["code"]), (401, "unauthenticated"))
        status, answer = post(body, token="wrong")
        self.assertEqual(status, 401)

    def test_bad_requests_are_400_naming_the_field(self) -> None:
        cases = [
            ({"query": [PROMPT + GOLD], "prompts": [PROMPT], "labels": [""]}, "labels[0]"),
            ({"query": [PROMPT + GOLD], "prompts": [PROMPT], "labels": ["no/such/task"]}, "labels[0]"),
            ({"query": [PROMPT + GOLD], "prompts": [PROMPT]}, "labels"),
            ({"query": [PROMPT + GOLD], "prompts": [PROMPT, PROMPT], "labels": [TASK_ID]}, "prompts"),
            ({"query": [PROMPT + GOLD], "prompts": [PROMPT], "labels": [None]}, "labels[0]"),
        ]
        for body, field in cases:
            status, answer = post(body)
            self.assertEqual((status, answer["error"]["field"]), (400, field), answer)
        status, answer = post(None, raw=b"{not json")
        self.assertEqual((status, answer["error"]["code"]), (400, "invalid_argument"))
        # A query without its prompt is not refused (OpenRLHF may truncate the prompt): scored whole.
        status, answer = post({"query": [GOLD], "prompts": [PROMPT], "labels": [TASK_ID]})
        self.assertEqual((status, answer["rewards"], answer["extra_logs"]["prompt_fallback"]), (200, [0.1], [1]))

    def test_empty_request(self) -> None:
        status, body = post({"query": [], "prompts": [], "labels": []})
        self.assertEqual((status, body["rewards"], body["scores"]), (200, [], []))

    def test_other_paths_and_methods(self) -> None:
        status, body = post({}, url=OPENRLHF_URL.replace("/get_reward", "/other"))
        self.assertEqual(status, 404)
        try:
            urllib.request.urlopen(OPENRLHF_URL, timeout=10)
            self.fail("GET should fail")
        except urllib.error.HTTPError as error:
            self.assertEqual((error.code, error.headers["allow"]), (405, "POST"))


if __name__ == "__main__":
    unittest.main()
