"""Secrets recognised by content: each token shape, private-key block, password in a URL, password hash and secret
assignment is redacted; code and text that only look alike are left as they are; the scan is linear."""

from __future__ import annotations

import time

import anyio
import pytest

from council.evidence import WorkspaceTools, redaction

GH = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


@pytest.mark.parametrize("line, secret, what", [
    (f'token = "{GH}"', GH, "GitHub token"),
    ('{"oauth_token":"ghu_16C7e42F292c6912E7710c838347Ae178B4a"}', "ghu_16C7e42F292c6912E7710c838347Ae178B4a",
     "GitHub token"),
    ("url: github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuv", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop",
     "GitHub token"),
    ("export OPENAI_API_KEY=sk-proj-abcDEF1234567890abcdefGHIJKLmnop", "sk-proj-abcDEF1234567890abcdef",
     "OpenAI key"),
    ("ANTHROPIC_API_KEY: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789", "sk-ant-api03-abcdefghijklmnop",
     "Anthropic key"),
    ("HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH", "Hugging Face token"),
    ("key=AIzaSyA1234567890abcdefghijklmnopqrstuv", "AIzaSyA1234567890abcdefghijklmnopqrstuv", "Google API key"),
    ('"access_token": "ya29.a0AfH6SMBx1234567890abcdefghij"', "ya29.a0AfH6SMBx1234567890abcdefghij",
     "Google OAuth token"),
    ("aws_access_key_id = AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "AWS key"),
    ("SLACK=xoxb-1234567890-abcdefghijkl", "xoxb-1234567890-abcdefghijkl", "Slack token"),
    ("stripe sk_live_abcdefghijklmnop1234", "sk_live_abcdefghijklmnop1234", "Stripe key"),
    ("//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
     "npm_abcdefghijklmnopqrstuvwxyz0123456789", "npm token"),
    ("jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
     "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "JSON web token"),
    ("root:$6$saltsalt$abcdefghijklmnopqrstuvwxyz0123456789ABCDEF:19000:0:99999:7:::", "abcdefghijklmnopqrstuvwxyz",
     "password hash"),
    ("git clone https://deploy:hunter2pass@example.com/repo.git", "hunter2pass", "password"),
    ("Authorization: Bearer abcdefghijklmnop1234567890", "abcdefghijklmnop1234567890", "credential"),
    ('{"auths":{"ghcr.io":{"auth":"dXNlcjpwYXNzd29yZDEyMzQ1Ng=="}}}', "dXNlcjpwYXNzd29yZDEyMzQ1Ng==", "secret"),
    ('password = "correct horse battery"', "correct horse battery", "secret"),
    ("export DB_PASSWORD=correcthorse", "correcthorse", "secret"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "wJalrXUtnFEMI/K7MDENG", "secret"),
    ('"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0B\\n-----END PRIVATE KEY-----\\n"',
     "MIIEvQIBADANBgkqhkiG9w0B", "private key"),
    ("AccountName=a;AccountKey=q1w2e3r4t5y6u7i8o9p0AbCdEfGh==;EndpointSuffix=x", "q1w2e3r4t5y6u7i8o9p0", "secret"),
    ("DATABASE_URL=postgres://app:s3cr3tpw@db:5432/app", "s3cr3tpw", "password"),
    ("curl -u admin:hunter22 https://example.com", "hunter22", "password"),
    ("sshpass -p hunter22 ssh host", "hunter22", "password"),
    ("SECRET_KEY_BASE=0123456789abcdef0123456789abcdef", "0123456789abcdef", "secret"),
    ("twilio SK0123456789abcdef0123456789abcdef", "SK0123456789abcdef", "Twilio key"),
    ("mailgun key-0123456789abcdef0123456789abcdef", "key-0123456789abcdef", "Mailgun key"),
])
def test_secret_spans_are_redacted(line: str, secret: str, what: str):
    out = redaction.Redactor().line(line)
    assert secret not in out and f"[redacted: {what}]" in out, out


@pytest.mark.parametrize("line", [
    "    token = request_token", "    auth = self.auth", "    pwd = os.getcwd()", "max_tokens=4000",
    'secret = "it looks like a secrets file, which the council never reads"', "author = 'someone@example.com'",
    'api_key: str | None = Field(None, description="x")', "task-abcdefghijklmnopqrstuvwxyz0123",
    '"integrity": "sha512-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOP=="', "password: null",
    "password: ${DB_PASSWORD}", "see https://example.com/docs:8080/page", "-----BEGIN CERTIFICATE-----",
    "git push -u origin:main", "monkey-0123456789abcdef0123456789abcdef",
])
def test_code_and_text_that_only_look_alike_are_kept(line: str):
    assert redaction.Redactor().line(line) == line


def test_a_private_key_block_is_redacted_line_by_line_and_an_unterminated_one_to_the_end():
    body = ["b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ", "AAAAC3NzaC1lZDI1NTE5AAAAIHx"]
    text = "\n".join(["before", "-----BEGIN OPENSSH PRIVATE KEY-----", *body, "-----END OPENSSH PRIVATE KEY-----",
                      "after", "-----BEGIN RSA PRIVATE KEY-----", "MIIEpAIBAAKCAQEA", "still key"])
    out = redaction.text(text).split("\n")
    assert out[0] == "before" and out[5] == "after" and len(out) == len(text.split("\n"))
    assert all(line == "[redacted: private key]" for line in out[1:5] + out[6:])
    putty = "PuTTY-User-Key-File-3: ssh-ed25519\nPrivate-Lines: 1\nAAAAIGsecretbody\nPrivate-MAC: abc123\nend"
    assert "AAAAIGsecretbody" not in redaction.text(putty) and redaction.text(putty).endswith("end")


def test_a_long_line_is_redacted_before_it_is_cut_and_a_key_it_opens_goes_on_below(tmp_path):
    token = "ghp_" + "Z" * 36
    lines = ["x" * 7_985 + f" {token}", "y" * 50_000 + " -----BEGIN RSA PRIVATE KEY-----", "MIIEowIBAAKCAQEAsecretbody",
             "-----END RSA PRIVATE KEY-----", "after"]
    (tmp_path / "long.txt").write_text("\n".join(lines), encoding="utf-8")
    tools = WorkspaceTools(tmp_path)
    for query in ("long.txt", "long.txt:2-5", "long.txt:3-5"):
        text = anyio.run(tools.run, "read_file", query, False).text
        assert "ZZZZ" not in text and "secretbody" not in text, query
    below = anyio.run(tools.run, "read_file", "long.txt:3-5", False).text
    assert "3  [redacted: private key]" in below and "5  after" in below
    found = anyio.run(tools.run, "search_code", "secretbody|ZZZZ", True)
    assert found.ok and found.count == 0


@pytest.mark.parametrize("text", ["a" * 1_000_000, "token=" * 170_000, "sk-" * 300_000, "-----BEGIN" * 100_000,
                                  ("eyJ" + "a" * 1990 + " ") * 500, ("a://" + "b" * 199 + ":") * 5000,
                                  "password: \"" * 100_000, "1234567890:A" * 90_000,
                                  "curl -u " * 120_000, "sshpass -p " * 90_000])
def test_a_megabyte_of_hostile_text_is_redacted_in_linear_time(text: str):
    started = time.monotonic()
    redaction.text(text)
    assert time.monotonic() - started < 3.0  # ~0.3 s here; a backtracking pattern would take minutes
