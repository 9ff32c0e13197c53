"""The calibration's per-session statistics computed event by event, in plain Python, as the
paper describes them: the reference the vectorised :func:`pateval.calibration.tbg.collect_sessions`
must equal (it was pateval's own first implementation)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from pateval.calibration.tbg import ListRanking, Sessions, sessions_from_counts
from pateval.errors import malformed
from pateval.formats.interactions import BACK, CLICK, END, NEXT, SAVE, SERP, START, InteractionLog


def _session_events(log: InteractionLog) -> dict[tuple[str, str], np.ndarray]:
    keys = pd.MultiIndex.from_arrays([log.user, log.list])
    codes, uniques = pd.factorize(keys)
    order = np.argsort(codes, kind="stable")
    bounds = np.r_[0, np.cumsum(np.bincount(codes, minlength=len(uniques)))]
    return {tuple(uniques[i]): order[bounds[i]:bounds[i + 1]] for i in range(len(uniques))}


def collect_reference(log: InteractionLog, rankings: Mapping[str, ListRanking], lengths: Mapping,
                      groups: Mapping | None) -> Sessions:
    path = log.source
    sessions = _session_events(log)
    rows_user, rows_list, rows_topic, durations, ended_flags, reached_ranks = [], [], [], [], [], []
    # per session: serp_time, max_click, c1, n1, c0, n0, views, rel_views, rel_saves, non_views, non_saves, stop,
    # exposure
    basic = []
    view_rows = []
    serp_all = []
    trajectory = []
    for s, ((user, list_id), idx) in enumerate(sessions.items()):
        ranking = rankings.get(list_id)
        if ranking is None:
            malformed(path, int(log.line[idx[0]]),
                      f"list {list_id!r} is not a ranked list given (no topic {list_id!r} in "
                      "both the qrels and the run, and no lists file maps it)")
        n_ranked = len(ranking.docnos)
        t0 = float(log.time[idx[0]])
        serp_time = 0.0
        on_serp_since = t0
        open_view = None  # [docno, rank, since, saved, first, line]
        seen_groups: set = set()
        clicked_ranks: set[int] = set()
        reached = 0
        points = [(0.0, 0)]
        views = rel_views = rel_saves = non_views = non_saves = 0
        ended = False
        last = t0
        for i in idx:
            code = int(log.event[i])
            now = float(log.time[i])
            line = int(log.line[i])
            last = now
            if code == SERP:  # a page shown: the user is (still) on results pages, the clock runs on
                reached = max(reached, int(log.rank[i]))
                points.append((now - t0, reached))
            elif code == START:
                on_serp_since = now
            elif code == CLICK:
                rank = int(log.rank[i])
                if rank > n_ranked:
                    malformed(path, line, f"click at rank {rank}, but list {list_id!r} ranks {n_ranked} documents")
                docno = log.docno[i]
                expected = str(ranking.docnos[rank - 1])
                if docno is None:
                    docno = expected
                elif docno != expected:
                    malformed(path, line, f"the document at rank {rank} of list {list_id!r} is {expected!r}",
                              found=docno)
                serp_time += now - on_serp_since
                clicked_ranks.add(rank)
                reached = max(reached, rank)
                points.append((now - t0, reached))
                group = groups.get(docno, docno) if groups is not None else docno
                first = group not in seen_groups
                seen_groups.add(group)
                open_view = [docno, rank, now, False, first, line, None]
            elif code == SAVE:
                open_view[3] = True
                open_view[6] = now  # reading ends at the save
            elif code in (BACK, END):
                if open_view is not None:
                    docno, rank, since, saved, first, click_line, saved_at = open_view
                    relevant = bool(ranking.relevant[rank - 1])
                    if code == BACK:  # a view cut short by `end` has no verdict: not counted
                        views += 1
                        if relevant:
                            rel_views += 1
                            rel_saves += saved
                        else:
                            non_views += 1
                            non_saves += saved
                    length = lengths.get(docno) if lengths is not None else None
                    if length is None and code == BACK and first:
                        malformed(path, click_line, f"no length for document {docno!r} in the document lengths")
                    view_rows.append((s, docno, rank, relevant, np.nan if length is None else float(length),
                                      (saved_at if saved else now) - since if code == BACK else np.nan, saved, first,
                                      since - t0))
                    open_view = None
                    on_serp_since = now
                if code == END:
                    ended = True
            elif code == NEXT:
                serp_time += now - on_serp_since
                on_serp_since = now
        max_click = max(clicked_ranks) if clicked_ranks else 0
        c1 = n1 = c0 = n0 = 0
        if max_click:
            seen = ranking.relevant[:max_click].astype(bool)
            n1 = int(seen.sum())
            n0 = max_click - n1
            clicked = np.zeros(max_click, dtype=bool)
            clicked[np.fromiter(clicked_ranks, dtype=np.int64) - 1] = True
            c1 = int((clicked & seen).sum())
            c0 = int((clicked & ~seen).sum())
        rows_user.append(user)
        rows_list.append(list_id)
        rows_topic.append(ranking.topic)
        durations.append(last - t0)
        ended_flags.append(ended)
        reached_ranks.append(reached)
        trajectory.extend((s, t, r) for t, r in points)
        serp_all.append(serp_time)
        basic.append((serp_time if max_click else 0.0, max_click, c1, n1, c0, n0, views, rel_views, rel_saves,
                      non_views,
                      non_saves, float(ended), last - t0))
    views = pd.DataFrame(view_rows, columns=["session", "docno", "rank", "relevant", "length", "time", "saved",
                                             "first", "opened"])
    return sessions_from_counts(basic, serp_all, views, user=rows_user, list_ids=rows_list, topics=rows_topic,
                                durations=durations, ended=ended_flags, reached=reached_ranks,
                                trajectory=pd.DataFrame(trajectory, columns=["session", "time", "rank"]))

