"""Issue 48 item 2: `--user` is the owner of memories (a record's `user`) on every command that has one, and the
Neo4j login takes cypher-shell's names (-u/--username, -p/--password). The old login spelling gets a one-line
usage error that says where the login went, and nothing is written."""

from __future__ import annotations

import json

from click.testing import CliRunner

from kgmem.cli import cli


def run(*args: str, env: dict):
    return CliRunner().invoke(cli, list(args), env=env, catch_exceptions=False)


def one_usage_error(res) -> str:
    assert res.exit_code == 2, (res.exit_code, res.output)
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: ") and " Fix: " in lines[0], lines
    return lines[0]


def test_remember_user_maya_stores_for_maya_and_recall_user_sees_it(mg, cli_env):
    res = run("remember", "I moved to Porto", "--user", "maya", "--id", "porto", "--json", env=cli_env)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["user"] == "maya"
    assert mg.get("porto").user == "maya"
    mine = json.loads(run("recall", "Porto", "--user", "maya", "--json", env=cli_env).stdout)
    assert [h["id"] for h in mine["hits"]] == ["porto"]
    theirs = json.loads(run("recall", "Porto", "--user", "kim", "--json", env=cli_env).stdout)
    assert theirs["hits"] == []
    # the old owner option still works, unlisted
    assert (
        json.loads(run("remember", "I moved to Porto", "--for-user", "maya", "--json", env=cli_env).stdout)["user"]
        == "maya"
    )


def test_the_login_is_dash_u_and_dash_p(mg, cli_env, neo4j_connection):
    uri, user, password, _ = neo4j_connection
    env = {k: v for k, v in cli_env.items() if k not in ("NEO4J_USERNAME", "NEO4J_PASSWORD")}
    res = run("now", "maya", "lives_in", "--json", "-u", user or "neo4j", "-p", password or "", env=env)
    assert res.exit_code == 0, res.output
    res = run("now", "maya", "lives_in", "--json", "--username", user or "neo4j", "--password", "wrong", env=env)
    assert res.exit_code == 1 and "refused the credentials" in res.stderr, res.output
    assert "-p/--password" in res.stderr and "-u/--username" in res.stderr


def test_the_old_login_spelling_is_a_one_line_usage_error_and_writes_nothing(mg, cli_env):
    line = one_usage_error(run("remember", "I moved to Porto", "--user", "neo4j", "--password", "x", env=cli_env))
    assert "--user neo4j names the owner" in line and "-u/--username" in line, line
    assert mg.empty_tenant_hint() is not None  # nothing stored for 'neo4j'
    # a command without an owner says where the login went instead of "no such option"
    line = one_usage_error(run("why", "why did it crash?", "--user", "neo4j", env=cli_env))
    assert "takes no --user" in line and "-u/--username" in line, line
    # with both, --user is the owner and -u the login: no ambiguity
    env = {k: v for k, v in cli_env.items() if k != "NEO4J_USERNAME"}
    password = cli_env["NEO4J_PASSWORD"]
    res = run(
        "remember",
        "I moved to Porto",
        "--user",
        "maya",
        "-u",
        cli_env["NEO4J_USERNAME"],
        "--password",
        password,
        "--json",
        env=env,
    )
    assert res.exit_code == 0 and json.loads(res.stdout)["user"] == "maya", res.output


def test_remember_p_is_the_predicate_and_says_where_the_password_is(cli_env):
    line = one_usage_error(run("remember", "x", "-p", "secret", env=cli_env))
    assert "--predicate" in line and "--password" in line, line


def test_ingest_user_owns_the_records_that_name_none(mg, cli_env, tmp_path):
    f = tmp_path / "r.jsonl"
    f.write_text(
        json.dumps({"id": "a", "text": "I like tea"})
        + "\n"
        + json.dumps({"id": "b", "text": "I like coffee", "user": "kim"})
        + "\n"
    )
    res = run("ingest", str(f), "--user", "maya", "--json", env=cli_env)
    assert res.exit_code == 0, res.output
    assert (mg.get("a").user, mg.get("b").user) == ("maya", "kim")


def test_help_lists_user_as_the_owner_and_the_login_as_username():
    recall = CliRunner().invoke(cli, ["recall", "--help"]).output
    assert "--user NAME" in recall and "-u, --username" in recall and "-p, --password" in recall
    assert "--for-user" not in recall
    why = CliRunner().invoke(cli, ["why", "--help"]).output
    assert "--user" not in why.replace("--username", "") and "-u, --username" in why
    remember = CliRunner().invoke(cli, ["remember", "--help"]).output
    assert "-p, --predicate" in remember and "  --password" in remember
