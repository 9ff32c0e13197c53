"""Make an assessment database with the code before schema 5 (schema 4), for the migration test.

Run at commit a02b69c: ``PYTHONPATH=<that checkout>/src python make_schema4.py schema4.db``."""

import os
import sys

os.environ["PATEVAL_ASSESS_SCRYPT_LOG2N"] = "10"

from pateval.assess import db, service  # noqa: E402  (after the scrypt cost is set)

assert db.SCHEMA_VERSION == 4, db.SCHEMA_VERSION
path = sys.argv[1]
url = f"sqlite:///{path}"
engine = db.open_database(url)
alice = service.add_assessor(engine, "alice", "quartz lantern forty", is_admin=True)
bob = service.add_assessor(engine, "bob", "velvet harbour ninety")
actors = {"alice": {"id": alice, "name": "alice", "is_admin": True},
          "bob": {"id": bob, "name": "bob", "is_admin": False}}
with engine.begin() as connection:
    connection.execute(db.sources.insert().values(patent_key="EP-1000001", status="open", version=0))
    tid = service.insert_topic(connection, patent_key="EP-1000001", qid="PSG-1", claims=(1, 2), actor=actors["alice"])
    service.write_selection(connection, topic_id=tid, cited_ucid="EP-1000002-A1", owner="bob",
                            xpaths=["/patent-document/description/p[1]", "/patent-document/description/p[3]"],
                            base_version=0, actor=actors["bob"])
    service.write_selection(connection, topic_id=tid, cited_ucid="EP-1000002-A1", owner="bob",
                            xpaths=["/patent-document/description/p[3]"], base_version=1, actor=actors["bob"])
    service.write_selection(connection, topic_id=tid, cited_ucid="EP-1000002-A1", owner=db.ADJUDICATED,
                            xpaths=["/patent-document/description/p[1]"], base_version=0, actor=actors["alice"])
assert not db.check_consistency(engine)
engine.dispose()
print("made", path)
