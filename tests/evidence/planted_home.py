"""A planted home folder: the credential files of the common developer tools (each secret value unique and shaped
like the real one), files that only hold secrets somewhere in their text, and a plain note that may be read."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path

PLAN = "PLAN-SENTINEL-93: move billing out first."


def _token(prefix: str, length: int, seed: str) -> str:
    """A token-shaped value unique to ``seed`` (letters and digits, as real tokens are)."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    digest = b"".join(hashlib.sha256(f"{seed}:{i}".encode()).digest() for i in range(1 + length // 32))
    return prefix + "".join(alphabet[b % len(alphabet)] for b in digest[:length])


@dataclass(frozen=True)
class Planted:
    path: str  # relative to the home folder
    secrets: tuple[str, ...]  # values that must never reach a model
    outcome: str  # "location": the file is refused; "content": it is read with its secrets redacted


def _pem(kind: str, seed: str) -> tuple[str, str]:
    body = "\n".join(_token("", 64, f"{seed}{i}") for i in range(6))
    return f"-----BEGIN {kind}PRIVATE KEY-----\n{body}\n-----END {kind}PRIVATE KEY-----\n", body


def plant_home(home: Path) -> list[Planted]:
    """Write the planted files under ``home``; returns each with its secret values and expected outcome."""
    planted: list[Planted] = []

    def put(rel: str, text: str, secrets: tuple[str, ...], outcome: str) -> None:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        planted.append(Planted(rel, secrets, outcome))

    ghu1, ghu2 = _token("ghu_", 36, "copilot-hosts"), _token("ghu_", 36, "copilot-apps")
    put(".config/github-copilot/hosts.json", json.dumps({"github.com": {"user": "dev", "oauth_token": ghu1}}),
        (ghu1,), "location")
    put(".config/github-copilot/apps.json", json.dumps({"github.com:Iv1.b507a08c87ecfe98": {
        "user": "dev", "oauth_token": ghu2, "githubAppId": "Iv1.b507a08c87ecfe98"}}), (ghu2,), "location")
    codex = (_token("sk-proj-", 48, "codex-key"), _token("rt_", 40, "codex-refresh"),
             "eyJhbGciOiJSUzI1NiJ9." + _token("eyJ", 40, "codex-id") + "." + _token("", 43, "codex-sig"))
    put(".codex/auth.json", json.dumps({"OPENAI_API_KEY": codex[0], "tokens": {
        "refresh_token": codex[1], "id_token": codex[2]}}), codex, "location")
    ssh_key, ssh_body = _pem("OPENSSH ", "user-ssh")
    put(".ssh/id_ed25519", ssh_key, (ssh_body.split("\n")[0],), "location")
    docker = _token("", 40, "docker-auth")
    put(".docker/config.json", json.dumps({"auths": {"https://index.docker.io/v1/": {"auth": docker}}}),
        (docker,), "location")
    podman = _token("", 40, "podman-auth")
    put(".config/containers/auth.json", json.dumps({"auths": {"ghcr.io": {"auth": podman}}}), (podman,),
        "location")
    hf1, hf2 = _token("hf_", 34, "hf-cache"), _token("hf_", 34, "hf-legacy")
    put(".cache/huggingface/token", hf1 + "\n", (hf1,), "location")
    put(".huggingface/token", hf2 + "\n", (hf2,), "location")
    keyring = _token("", 32, "keyring")
    put(".local/share/keyrings/login.keyring", f"[keyring]\ndisplay-name=login\nsecret={keyring}\n", (keyring,),
        "location")
    firefox = _token("", 40, "firefox-login")
    put(".mozilla/firefox/abcd1234.default-release/logins.json", json.dumps(
        {"logins": [{"hostname": "https://example.com", "encryptedPassword": firefox}]}), (firefox,), "location")
    key4 = _token("", 40, "firefox-key4")
    put(".mozilla/firefox/abcd1234.default-release/key4.db", f"SQLite format 3 {key4}\n", (key4,), "location")
    aws = (_token("AKIA", 16, "aws-id").upper(), _token("", 40, "aws-secret"))
    put(".aws/credentials", f"[default]\naws_access_key_id = {aws[0]}\naws_secret_access_key = {aws[1]}\n", aws,
        "location")
    netrc = _token("", 24, "netrc")
    put(".netrc", f"machine api.example.com login dev password {netrc}\n", (netrc,), "location")
    npm = _token("npm_", 36, "npmrc")
    put(".npmrc", f"//registry.npmjs.org/:_authToken={npm}\n", (npm,), "location")
    pypi = _token("pypi-", 60, "pypirc")
    put(".pypirc", f"[pypi]\nusername = __token__\npassword = {pypi}\n", (pypi,), "location")
    gitcred = _token("ghp_", 36, "git-credentials")
    put(".git-credentials", f"https://dev:{gitcred}@github.com\n", (gitcred,), "location")
    gh = _token("gho_", 36, "gh-hosts")
    put(".config/gh/hosts.yml", f"github.com:\n    oauth_token: {gh}\n    user: dev\n", (gh,), "location")
    kube = _token("", 48, "kube-token")
    put(".kube/config", f"apiVersion: v1\nusers:\n- name: dev\n  user:\n    token: {kube}\n", (kube,), "location")
    gpg = _token("", 48, "gnupg")
    put(".gnupg/private-keys-v1.d/0123ABCD.key", f"Key: (private-key (ecc (d #{gpg}#)))\n", (gpg,), "location")
    claude = _token("sk-ant-oat01-", 60, "claude-oauth")
    put(".claude/.credentials.json", json.dumps({"claudeAiOauth": {"accessToken": claude}}), (claude,), "location")
    gemini = _token("ya29.", 60, "gemini-oauth")
    put(".gemini/oauth_creds.json", json.dumps({"access_token": gemini, "token_type": "Bearer"}), (gemini,),
        "location")
    gcloud = _token("1//0", 40, "gcloud-refresh")
    put(".config/gcloud/application_default_credentials.json", json.dumps(
        {"refresh_token": gcloud, "type": "authorized_user"}), (gcloud,), "location")
    azure = _token("", 48, "azure-cache")
    put(".azure/msal_token_cache.json", json.dumps({"AccessToken": {"x": {"secret": azure}}}), (azure,),
        "location")
    dotenv = _token("sk-", 48, "dotenv")
    put(".env", f"OPENAI_API_KEY={dotenv}\n", (dotenv,), "location")
    put("projects/app/.env", f"DATABASE_PASSWORD={_token('', 20, 'app-env')}\n", (_token("", 20, "app-env"),),
        "location")

    bashrc = (_token("sk-proj-", 48, "bashrc-openai"), _token("sk-ant-api03-", 80, "bashrc-anthropic"),
              _token("ghp_", 36, "bashrc-github"), _token("hf_", 34, "bashrc-hf"))
    put(".bashrc", "alias ll='ls -l'\n" + "".join(f"export {name}={value}\n" for name, value in zip(
        ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "HF_TOKEN"), bashrc, strict=True)), bashrc,
        "content")
    zshrc = (_token("AIza", 35, "zshrc-gemini"), _token("", 40, "zshrc-aws"), "correcthorsebatterystaple")
    put(".zshrc", f"export GEMINI_API_KEY={zshrc[0]}\nexport AWS_SECRET_ACCESS_KEY={zshrc[1]}\n"
                  f"export DB_PASSWORD={zshrc[2]}\nsetopt autocd\n", zshrc, "content")
    host_key, host_body = _pem("OPENSSH ", "host-key")
    put("backup/ssh_host_ed25519_key", host_key, tuple(host_body.split("\n")), "content")
    deploy_key, deploy_body = _pem("RSA ", "deploy-key")
    url_password = "Sup3r-S3cret-" + _token("", 8, "url")
    put("notes/deploy.md", f"# Deploy\n\nThe key:\n\n{deploy_key}\nClone https://deploy:{url_password}"
                           "@git.example.com/repo.git and run make.\n",
        (*deploy_body.split("\n"), url_password), "content")
    slack, stripe = _token("xoxb-", 40, "slack"), _token("sk_live_", 24, "stripe")
    put("projects/app/config.py", f'SLACK_TOKEN = "{slack}"\nSTRIPE = "{stripe}"\nTIMEOUT = 30\n',
        (slack, stripe), "content")
    generic = _token("", 32, "settings-api-key")
    put("projects/app/settings.json", json.dumps({"api_key": generic, "retries": 3}), (generic,), "content")
    shadow = "$6$" + _token("", 8, "salt") + "$" + _token("", 86, "shadow-hash")
    put("backup/shadow.txt", f"root:{shadow}:19000:0:99999:7:::\n", (shadow[3:],), "content")
    (home / "notes").mkdir(parents=True, exist_ok=True)
    (home / "notes" / "plan.md").write_text(f"# Plan\n\n{PLAN}\n", encoding="utf-8")
    return planted


def secrets_of(planted: list[Planted]) -> list[str]:
    return [s for p in planted for s in p.secrets]
