// pateval assess: passage selection on the Figure 2 screen, and a pooled document's grade on the
// pool page (the same save path). Plain JavaScript, no build step.
(function () {
  "use strict";
  var topicSelect = document.getElementById("topic-select");
  if (topicSelect) {
    topicSelect.addEventListener("change", function () { topicSelect.form.submit(); });
  }
  var box = document.getElementById("citation");
  var list = document.getElementById("passages");
  if (!box || !list) { return; }
  var status = document.getElementById("status");
  var saveButton = document.getElementById("save");
  var undoButton = document.getElementById("undo");
  var undoSteps = document.getElementById("undo-steps");
  var sticky = document.getElementById("sticky");
  var conflict = document.getElementById("conflict");
  var passages = Array.prototype.slice.call(list.querySelectorAll(".passage:not(.heading)"));
  var version = parseInt(box.dataset.version, 10) || 0;
  var anchor = null;   // last passage clicked (shift-click selects the range from it)
  var focus = -1;      // passage index the keyboard is on
  var dirty = false;
  // A pool page's grade: radio buttons named "grade" (none on the citation page: no grade is sent).
  var grades = Array.prototype.slice.call(document.querySelectorAll("input[name=grade]"));
  function grade() {
    var checked = grades.filter(function (g) { return g.checked; })[0];
    return checked ? parseInt(checked.value, 10) : null;
  }
  function setGrade(value) {
    grades.forEach(function (g) { g.checked = value !== null && value !== undefined && g.value === String(value); });
  }

  function say(text, kind) {
    status.textContent = text;
    status.className = kind || "";
  }
  function markDirty() {
    dirty = true;
    say("unsaved changes", "dirty");
  }
  function selected() {
    return passages.filter(function (p) { return p.classList.contains("selected"); })
      .map(function (p) { return p.dataset.xpath; });
  }
  // The passages' scroll-margin-top is the sticky block's height, so that a passage
  // scrolled into view is not hidden under it (the block's height changes with the window).
  function measureSticky() {
    document.documentElement.style.setProperty("--sticky-height", sticky.offsetHeight + "px");
  }
  measureSticky();
  window.addEventListener("resize", measureSticky);
  function setFocus(index) {
    if (index < 0 || index >= passages.length) { return; }
    if (focus >= 0) { passages[focus].classList.remove("focus"); }
    focus = index;
    passages[focus].classList.add("focus");
    passages[focus].focus({ preventScroll: true });
    measureSticky();
    passages[focus].scrollIntoView({ block: "nearest" });
  }
  function toggle(p, value) {
    p.classList.toggle("selected", value);
    markDirty();
  }

  list.addEventListener("click", function (event) {
    var p = event.target.closest(".passage");
    if (!p || p.classList.contains("heading")) { return; }
    var index = passages.indexOf(p);
    if (event.shiftKey && anchor !== null) {
      var low = Math.min(anchor, index), high = Math.max(anchor, index);
      var value = !p.classList.contains("selected") || passages[anchor].classList.contains("selected");
      for (var i = low; i <= high; i++) { toggle(passages[i], value); }
      window.getSelection && window.getSelection().removeAllRanges();
    } else {
      toggle(p, !p.classList.contains("selected"));
      anchor = index;
    }
    setFocus(index);
  });

  document.querySelectorAll("button.toggle").forEach(function (button) {
    button.addEventListener("click", function () {
      var members = passages.filter(function (p) { return p.dataset.section === button.dataset.section; });
      var all = members.length > 0 && members.every(function (p) { return p.classList.contains("selected"); });
      members.forEach(function (p) { toggle(p, !all); });
    });
  });
  grades.forEach(function (g) { g.addEventListener("change", function () { markDirty(); }); });
  document.getElementById("clear").addEventListener("click", function () {
    passages.forEach(function (p) { p.classList.remove("selected"); });
    markDirty();
  });
  var suggestion = document.getElementById("apply-suggestion");
  suggestion.addEventListener("click", function () {
    passages.forEach(function (p) { p.classList.toggle("selected", p.classList.contains("suggested")); });
    markDirty();
  });

  function send(url, body) {
    return fetch(url, {
      method: url.endsWith("/undo") ? "POST" : "PUT",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": box.dataset.csrf },
      credentials: "same-origin",
      body: JSON.stringify(body)
    }).then(function (response) {
      return response.json().then(function (data) { return { status: response.status, data: data }; });
    });
  }
  function base() {
    return "/api/topics/" + box.dataset.topic + "/citations/" + encodeURIComponent(box.dataset.cited);
  }
  function applySaved(data, verb) {
    version = data.version;
    box.dataset.version = String(version);
    var chosen = {};
    data.xpaths.forEach(function (x) { chosen[x] = true; });
    passages.forEach(function (p) { p.classList.toggle("selected", !!chosen[p.dataset.xpath]); });
    if (grades.length) { setGrade(data.grade); showInQueue(data.grade); }
    dirty = false;
    undoButton.disabled = !data.undo_steps;
    undoSteps.textContent = String(data.undo_steps || 0);
    endConflict();
    say(verb + " version " + version + " (" + (grades.length ? "grade " + (data.grade === null ? "none" : data.grade)
      + ", " : "") + data.xpaths.length + " passages) by " + data.saved_by, "saved");
  }

  // A pool page: the current document's grade in the queue, and the count of judged documents, as saved
  // (a grade given or undone counts at once, not at the next page).
  function showInQueue(grade) {
    var item = document.querySelector("#queue li.current");
    var progress = document.getElementById("pool-progress");
    if (!item || !progress) { return; }
    var mark = item.querySelector("span.grade");
    var change = (grade === null ? 0 : 1) - (mark ? 1 : 0);
    if (grade === null) {
      if (mark) { mark.remove(); }
    } else {
      if (!mark) {
        mark = document.createElement("span");
        item.querySelector("a").insertAdjacentElement("afterend", mark);
      }
      mark.className = "grade grade-" + grade;
      mark.textContent = String(grade);
    }
    if (change) {
      progress.textContent = progress.textContent.replace(/judged (\d+) \//, function (_, n) {
        return "judged " + (parseInt(n, 10) + change) + " /";
      });
    }
  }

  // A save conflict (409): the other page's selection is shown beside this one's, and the
  // assessor keeps either (keep mine saves over the version the other page saved).
  var theirs = null;
  function labels(xpaths) {
    var byXpath = {};
    passages.forEach(function (p) {
      var label = p.querySelector(".lbl");
      byXpath[p.dataset.xpath] = (label && label.textContent.trim()) || p.dataset.xpath;
    });
    return xpaths.map(function (x) { return byXpath[x] || x; }).join(", ") || "none";
  }
  function showConflict(current) {
    theirs = current;
    var mine = selected();
    var other = {};
    current.xpaths.forEach(function (x) { other[x] = true; });
    var onlyMine = mine.filter(function (x) { return !other[x]; });
    var onlyTheirs = current.xpaths.filter(function (x) { return mine.indexOf(x) < 0; });
    var when = (current.saved_at || "").replace("T", " ").slice(0, 19);
    document.getElementById("conflict-what").textContent = current.version
      ? current.saved_by + " saved version " + current.version + " at " + when + " UTC while you worked on version "
        + version + "."
      : "This selection was removed meanwhile.";
    var gradeOf = function (g) { return grades.length ? "grade " + (g === null ? "none" : g) + ", " : ""; };
    document.getElementById("conflict-mine").textContent = gradeOf(grade()) + mine.length + " passages; only yours: "
      + labels(onlyMine);
    document.getElementById("conflict-who").textContent = "Theirs (" + (current.saved_by || "nobody") + ", " + when
      + ")";
    document.getElementById("conflict-theirs").textContent = gradeOf(current.grade) + current.xpaths.length
      + " passages; only theirs: " + labels(onlyTheirs);
    passages.forEach(function (p) { p.classList.toggle("theirs", !!other[p.dataset.xpath]); });
    conflict.hidden = false;
    measureSticky();
  }
  function endConflict() {
    theirs = null;
    conflict.hidden = true;
    passages.forEach(function (p) { p.classList.remove("theirs"); });
    measureSticky();
  }
  document.getElementById("keep-mine").addEventListener("click", function () {
    version = theirs.version;
    save();
  });
  document.getElementById("take-theirs").addEventListener("click", function () {
    applySaved(theirs, "took theirs:");
  });

  function failed(result) {
    if (result.status === 409) {
      say("not saved: " + result.data.error, "stale");
      // ("nothing to undo" is a 409 too, without another page's save to show)
      if (result.data.current && result.data.current.version !== version) { showConflict(result.data.current); }
    } else {
      say("not saved (" + result.status + "): " + (result.data.error || "error"), "failed");
    }
  }
  function save(then) {
    if (saveButton.disabled) { return; }
    if (grades.length && grade() === null) {
      say("not saved: choose a grade first (keys 0-" + (grades.length - 1) + ")", "failed");
      return;
    }
    saveButton.disabled = true;
    say("saving...", "");
    var body = { xpaths: selected(), version: version, owner: box.dataset.owner };
    if (grades.length) { body.grade = grade(); }
    send(base() + "/selection", body)
      .then(function (result) {
        if (result.status === 200) {
          applySaved(result.data, "saved");
          if (then) { then(); }
        } else { failed(result); }
      })
      .catch(function () { say("not saved: the server did not answer", "failed"); })
      .then(function () { saveButton.disabled = false; });
  }
  function saveAndNext() {
    var link = document.getElementById("next");
    if (link) { save(function () { window.location = link.href; }); }
  }
  saveButton.addEventListener("click", function () { save(); });
  document.getElementById("save-next").addEventListener("click", saveAndNext);
  undoButton.addEventListener("click", function () {
    send(base() + "/undo", { version: version, owner: box.dataset.owner }).then(function (result) {
      if (result.status === 200) { applySaved(result.data, "undone: now"); } else { failed(result); }
    });
  });

  document.addEventListener("keydown", function (event) {
    var tag = (event.target.tagName || "").toLowerCase();
    var typing = tag === "input" && event.target.type !== "radio";  // (a grade's radio button keeps the keys)
    if (typing || tag === "select" || tag === "textarea" || event.ctrlKey || event.metaKey || event.altKey) {
      return;
    }
    var key = event.key;
    if (key === "j" || key === "ArrowDown") { setFocus(focus + 1); event.preventDefault(); }
    else if (key === "k" || key === "ArrowUp") { setFocus(Math.max(focus - 1, 0)); event.preventDefault(); }
    else if (key === " " || key === "x") {
      if (focus >= 0) { toggle(passages[focus], !passages[focus].classList.contains("selected")); anchor = focus; }
      event.preventDefault();
    }
    else if (grades.length && /^[0-9]$/.test(key) && parseInt(key, 10) < grades.length) {
      setGrade(parseInt(key, 10));
      markDirty();
      event.preventDefault();
    }
    else if (key === "s") { save(); event.preventDefault(); }
    else if (key === "S") { saveAndNext(); event.preventDefault(); }
    else if (key === "n" || key === "p") {
      var link = document.getElementById(key === "n" ? "next" : "prev");
      if (link && (!dirty || window.confirm("Leave without saving?"))) { window.location = link.href; }
    }
  });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) { event.preventDefault(); event.returnValue = ""; }
  });
}());
