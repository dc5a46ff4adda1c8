//! A remote engine's servers as one renderer: lines go out in batch
//! requests (single requests to a server that has no batch route), each
//! to the server with the least work ahead of it (its rows in flight times
//! its average time per row), at most two requests per server at once.
//! A server that cannot be reached, errs, hangs past the timeout or
//! answers garbage is taken out of rotation with the reason, its rows go
//! back to the front of the queue for the others, and the time that took
//! is kept (a [`Failover`]); it is checked again (`/health`) after a wait
//! that doubles each time, and comes back when it answers. A line the
//! servers refuse for its own sake fails alone, with the engine's words.
//! Each line is handed over once, whichever server rendered it.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::client::{Fault, ServerClient, SpeechItem, SpokenLine};
use super::uploads::{Reference, Uploads};
use revoice_core::config::RemoteEngineSettings;

/// Requests one server runs at once.
const REQUESTS_PER_SERVER: usize = 2;
/// Most lines in one batch request.
const MAX_BATCH: usize = 4;
/// Times a line is sent before it fails (to servers it has not failed on first).
const MAX_ATTEMPTS: u32 = 3;
/// The first wait before a failed server is checked again; it doubles up to the last.
const RECHECK: (Duration, Duration) = (Duration::from_secs(1), Duration::from_secs(30));
/// Health checks in a row a server may fail before the lines waiting for it give up
/// (when no other server is up).
const MAX_RECHECKS: u32 = 4;

/// One line for the engine: the request, and the reference it clones (if any).
#[derive(Debug, Clone)]
pub struct RemoteLine {
    pub item: SpeechItem,
    pub reference: Option<Reference>,
}

/// How one server stands, for the render panel and `/metrics`.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub url: String,
    /// In rotation.
    pub up: bool,
    /// Why it is out of rotation.
    pub problem: Option<String>,
    /// The last fault it had, kept after it is back in rotation.
    pub last_fault: Option<String>,
    /// Lines sent to it and not yet answered.
    pub in_flight: usize,
    /// Its average time per line, ms (none before its first answer).
    pub ms_per_line: Option<f64>,
    pub lines_done: u64,
    pub failures: u64,
}

/// A server taken out mid-render and its lines sent elsewhere.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct Failover {
    pub server: String,
    pub reason: String,
    /// Its lines that had to go elsewhere.
    pub lines: usize,
    /// From its fault to the first of those lines sent to another server, s.
    pub resent_after_s: Option<f64>,
    /// From its fault to the last of those lines rendered elsewhere, s.
    pub recovered_after_s: Option<f64>,
}

/// What a fleet render did besides the lines.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FleetRun {
    pub failovers: Vec<Failover>,
    pub cancelled: bool,
}

#[derive(Debug)]
struct ServerState {
    up: bool,
    problem: Option<String>,
    last_fault: Option<String>,
    /// Checked again after this (when out of rotation).
    recheck_at: Option<Instant>,
    recheck_wait: Duration,
    /// Health checks failed in a row.
    rechecks_failed: u32,
    checking: bool,
    requests: usize,
    in_flight: usize,
    /// Seconds per line, a running average.
    per_line_s: Option<f64>,
    lines_done: u64,
    failures: u64,
    /// The batch route answered 404/405: single requests only.
    no_batch: bool,
}

struct Server {
    client: ServerClient,
    state: Mutex<ServerState>,
}

impl Server {
    fn state(&self) -> std::sync::MutexGuard<'_, ServerState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A health check's outcome: back in rotation, or out for longer.
    fn checked(&self, outcome: Result<(), String>) {
        let mut st = self.state();
        st.checking = false;
        match outcome {
            Ok(()) => {
                st.up = true;
                st.problem = None;
                st.rechecks_failed = 0;
                tracing::info!(server = %self.client.base, "a remote server is back in rotation");
            }
            Err(reason) => {
                st.rechecks_failed += 1;
                st.problem = Some(reason);
                st.recheck_wait = (st.recheck_wait * 2).min(RECHECK.1);
                st.recheck_at = Some(Instant::now() + st.recheck_wait);
            }
        }
    }

    fn take_out(&self, reason: &str) {
        let mut s = self.state();
        s.up = false;
        s.problem = Some(reason.to_string());
        s.last_fault = Some(reason.to_string());
        s.failures += 1;
        s.recheck_wait = if s.recheck_at.is_some() { (s.recheck_wait * 2).min(RECHECK.1) } else { RECHECK.0 };
        s.recheck_at = Some(Instant::now() + s.recheck_wait);
        tracing::warn!(server = %self.client.base, reason, "a remote server is out of rotation");
    }
}

/// A remote engine's servers.
pub struct Fleet {
    pub settings: RemoteEngineSettings,
    servers: Vec<Arc<Server>>,
    uploads: Arc<Uploads>,
}

/// What a request thread sends back.
enum Answer {
    Lines { server: usize, jobs: Vec<usize>, outcome: Result<Vec<Result<SpokenLine, Fault>>, Fault>, took: Duration },
    Health,
}

impl Fleet {
    /// The servers of `settings`, all in rotation until one fails.
    pub fn new(settings: RemoteEngineSettings, uploads: Arc<Uploads>) -> Fleet {
        let servers = settings
            .urls
            .iter()
            .map(|url| {
                Arc::new(Server {
                    client: ServerClient::new(url, &settings.api_key, &settings.model, settings.timeout()),
                    state: Mutex::new(ServerState {
                        up: true,
                        problem: None,
                        last_fault: None,
                        recheck_at: None,
                        recheck_wait: RECHECK.0,
                        rechecks_failed: 0,
                        checking: false,
                        requests: 0,
                        in_flight: 0,
                        per_line_s: None,
                        lines_done: 0,
                        failures: 0,
                        no_batch: false,
                    }),
                })
            })
            .collect();
        Fleet { settings, servers, uploads }
    }

    /// Each server's standing now.
    pub fn status(&self) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|server| {
                let s = server.state();
                ServerStatus {
                    url: server.client.base.clone(),
                    up: s.up,
                    problem: s.problem.clone(),
                    last_fault: s.last_fault.clone(),
                    in_flight: s.in_flight,
                    ms_per_line: s.per_line_s.map(|t| t * 1000.0),
                    lines_done: s.lines_done,
                    failures: s.failures,
                }
            })
            .collect()
    }

    /// Renders `lines`; `done` gets each line's audio or the reason it
    /// failed (naming the engine), once per line, as they finish.
    pub fn render(&self, lines: &[RemoteLine], cancel: &AtomicBool, done: &mut dyn FnMut(usize, Result<SpokenLine, String>)) -> FleetRun {
        let name = &self.settings.name;
        let (tx, rx) = mpsc::channel::<Answer>();
        let mut queue: VecDeque<usize> = (0..lines.len()).collect();
        let mut attempts = vec![0u32; lines.len()];
        let mut last_fault: Vec<Option<String>> = vec![None; lines.len()];
        // The servers each line failed on: a line is resent to a server it
        // has not failed on while one is up (even if it must wait for it),
        // so a server that errs at once cannot spend all of a line's
        // attempts while a good one is busy.
        let mut failed_on: Vec<Vec<usize>> = vec![Vec::new(); lines.len()];
        let mut finished = vec![false; lines.len()];
        // Which failover (if any) each line is being recovered for.
        let mut recovering: Vec<Option<usize>> = vec![None; lines.len()];
        let mut run = FleetRun::default();
        let mut failed_at: Vec<Instant> = Vec::new();
        let mut outstanding = 0usize;
        let mut left = lines.len();

        while left > 0 {
            if cancel.load(Ordering::Acquire) {
                run.cancelled = true;
                return run;
            }
            // Servers due a health check get one.
            for server in &self.servers {
                let mut s = server.state();
                if !s.up && !s.checking && s.recheck_at.is_some_and(|t| t <= Instant::now()) {
                    s.checking = true;
                    outstanding += 1;
                    let (server, tx) = (server.clone(), tx.clone());
                    std::thread::spawn(move || {
                        // Applied here, so a check outliving its render (cancelled) still lands.
                        server.checked(server.client.healthy());
                        let _ = tx.send(Answer::Health);
                    });
                }
            }
            // With no server up and every one failing its checks, the waiting lines give up.
            let hopeless = self.servers.iter().all(|s| {
                let s = s.state();
                !s.up && s.rechecks_failed >= MAX_RECHECKS
            });
            if hopeless {
                let why: Vec<String> = self.servers.iter().map(|s| format!("{}: {}", s.client.base, s.state().problem.clone().unwrap_or_default())).collect();
                for i in queue.drain(..) {
                    finished[i] = true;
                    left -= 1;
                    done(i, Err(format!("engine {name}: no server is up ({})", why.join("; "))));
                }
            }
            // Hand out work while a server has room, the first waiting line's
            // first: a server it may go to.
            while let Some(&head) = queue.front() {
                let Some((server_index, batch)) = self.pick(queue.len(), |i| self.may_send(&failed_on[head], i)) else { break };
                let (jobs, kept): (Vec<usize>, Vec<usize>) = {
                    let mut taken = 0;
                    queue.drain(..).partition(|&j| {
                        let take = taken < batch && self.may_send(&failed_on[j], server_index);
                        taken += take as usize;
                        take
                    })
                };
                queue = kept.into();
                for &j in &jobs {
                    attempts[j] += 1;
                    if let Some(f) = recovering[j] {
                        run.failovers[f].resent_after_s.get_or_insert(failed_at[f].elapsed().as_secs_f64());
                    }
                }
                let server = self.servers[server_index].clone();
                {
                    let mut s = server.state();
                    s.requests += 1;
                    s.in_flight += jobs.len();
                }
                outstanding += 1;
                let sent: Vec<RemoteLine> = jobs.iter().map(|&j| lines[j].clone()).collect();
                let (tx, uploads, engine) = (tx.clone(), self.uploads.clone(), name.clone());
                std::thread::spawn(move || {
                    let started = Instant::now();
                    let outcome = send(&server, &uploads, &engine, &sent);
                    // Counted off here, so a request outliving its render (cancelled) still frees its room.
                    {
                        let mut s = server.state();
                        s.requests -= 1;
                        s.in_flight -= jobs.len();
                    }
                    let _ = tx.send(Answer::Lines { server: server_index, jobs, outcome, took: started.elapsed() });
                });
            }
            if outstanding == 0 && !queue.is_empty() {
                // Everyone is out and no check is due yet: wait for the next one.
                std::thread::sleep(Duration::from_millis(100));
                continue;
            }
            let answer = match rx.recv_timeout(Duration::from_millis(200)) {
                Ok(answer) => answer,
                Err(_) => continue,
            };
            outstanding -= 1;
            match answer {
                Answer::Health => {}
                Answer::Lines { server, jobs, outcome, took } => {
                    let s = &self.servers[server];
                    let outcomes: Vec<Result<SpokenLine, Fault>> = match outcome {
                        Ok(each) => {
                            let mut st = s.state();
                            let per_line = took.as_secs_f64() / jobs.len().max(1) as f64;
                            st.per_line_s = Some(st.per_line_s.map_or(per_line, |avg| 0.7 * avg + 0.3 * per_line));
                            each
                        }
                        Err(fault) => jobs.iter().map(|_| Err(fault.clone())).collect(),
                    };
                    let mut server_fault: Option<String> = None;
                    for (&j, outcome) in jobs.iter().zip(outcomes) {
                        if finished[j] {
                            continue;
                        }
                        match outcome {
                            Ok(audio) => {
                                s.state().lines_done += 1;
                                finished[j] = true;
                                left -= 1;
                                if let Some(f) = recovering[j].take() {
                                    // Recovered once the last of its lines is rendered.
                                    if !recovering.contains(&Some(f)) {
                                        run.failovers[f].recovered_after_s = Some(failed_at[f].elapsed().as_secs_f64());
                                    }
                                }
                                done(j, Ok(audio));
                            }
                            Err(Fault::Line(reason)) => {
                                finished[j] = true;
                                left -= 1;
                                done(j, Err(format!("engine {name} ({}): {reason}", s.client.base)));
                            }
                            Err(Fault::VoiceGone(reason)) => {
                                // Sent again (the reference is uploaded again first).
                                last_fault[j] = Some(reason);
                                if attempts[j] > MAX_ATTEMPTS {
                                    finished[j] = true;
                                    left -= 1;
                                    done(j, Err(format!("engine {name} ({}): {}", s.client.base, last_fault[j].clone().unwrap_or_default())));
                                } else {
                                    queue.push_front(j);
                                }
                            }
                            Err(Fault::Server(reason)) => {
                                last_fault[j] = Some(format!("{}: {reason}", s.client.base));
                                server_fault.get_or_insert(reason);
                                if !failed_on[j].contains(&server) {
                                    failed_on[j].push(server);
                                }
                                if attempts[j] >= MAX_ATTEMPTS {
                                    finished[j] = true;
                                    left -= 1;
                                    let servers = failed_on[j].len();
                                    done(
                                        j,
                                        Err(format!(
                                            "engine {name}: tried {MAX_ATTEMPTS} times on {servers} server{}; last, {}",
                                            if servers == 1 { "" } else { "s" },
                                            last_fault[j].clone().unwrap_or_default()
                                        )),
                                    );
                                } else {
                                    queue.push_front(j);
                                }
                            }
                        }
                    }
                    if let Some(reason) = server_fault {
                        let already_out = !s.state().up;
                        if !already_out {
                            s.take_out(&reason);
                        }
                        let moved: Vec<usize> = jobs.iter().copied().filter(|&j| !finished[j]).collect();
                        if !moved.is_empty() {
                            // One failover per fault of a server: its other requests failing with it join it.
                            let f = match run.failovers.iter().rposition(|f| f.server == s.client.base && f.recovered_after_s.is_none()) {
                                Some(f) if already_out => {
                                    run.failovers[f].lines += moved.len();
                                    f
                                }
                                _ => {
                                    run.failovers.push(Failover {
                                        server: s.client.base.clone(),
                                        reason,
                                        lines: moved.len(),
                                        resent_after_s: None,
                                        recovered_after_s: None,
                                    });
                                    failed_at.push(Instant::now());
                                    run.failovers.len() - 1
                                }
                            };
                            for j in moved {
                                recovering[j] = Some(f);
                            }
                        }
                    }
                }
            }
        }
        run
    }

    /// One line as it renders, for a preview: streamed from the least busy
    /// server (16-bit PCM as it arrives, handed to `play` at `rate`), another
    /// server tried when one fails. Returns the whole line at `rate`.
    pub fn speak_streaming(
        &self,
        line: &RemoteLine,
        cancel: &AtomicBool,
        rate: u32,
        play: &mut dyn FnMut(&[f32]) -> revoice_core::error::Result<()>,
    ) -> revoice_core::error::Result<Vec<f32>> {
        use revoice_core::error::Error;
        let name = &self.settings.name;
        let mut last: Option<String> = None;
        // A server out of rotation (still loading its model, say) is tried
        // again when its wait is over, for up to half a minute.
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut tries = 0;
        while tries < 2 * MAX_ATTEMPTS && Instant::now() < deadline {
            tries += 1;
            let Some((i, _)) = self.pick_from(1, false, |_| true) else { break };
            let server = &self.servers[i];
            let wait = {
                let s = server.state();
                if s.up {
                    None
                } else {
                    s.recheck_at.map(|t| t.saturating_duration_since(Instant::now()).min(deadline.saturating_duration_since(Instant::now())))
                }
            };
            if let Some(wait) = wait {
                let until = Instant::now() + wait;
                while Instant::now() < until {
                    if cancel.load(Ordering::Acquire) {
                        return Err(Error::Cancelled("the preview".into()));
                    }
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
            let refused = |reason: &str| Error::invalid(format!("engine {name} ({})", server.client.base), reason.to_string());
            let mut item = line.item.clone();
            if let Some(reference) = &line.reference {
                match self.uploads.voice_on(name, &server.client, reference) {
                    Ok(voice) => item.voice = Some(voice),
                    Err(Fault::Line(r)) if r.starts_with(super::client::NO_UPLOADS) => item.ref_audio = Some(reference.inline().map_err(|e| refused(&e))?),
                    Err(Fault::Server(r)) => {
                        server.take_out(&r);
                        last = Some(format!("{}: {r}", server.client.base));
                        continue;
                    }
                    Err(other) => return Err(refused(other.reason())),
                }
            }
            {
                let mut s = server.state();
                s.requests += 1;
                s.in_flight += 1;
            }
            let started = Instant::now();
            let outcome = server.client.speak_streaming(&item, &mut |chunk, chunk_rate| {
                if cancel.load(Ordering::Acquire) {
                    return Err(Error::Cancelled("the preview".into()));
                }
                if chunk_rate == rate {
                    play(chunk)
                } else {
                    Ok(())
                }
            });
            {
                let mut s = server.state();
                s.requests -= 1;
                s.in_flight -= 1;
            }
            if cancel.load(Ordering::Acquire) {
                return Err(Error::Cancelled("the preview".into()));
            }
            match outcome {
                Ok(spoken) => {
                    {
                        let mut s = server.state();
                        // It answered: back in rotation if it was out.
                        s.up = true;
                        s.problem = None;
                        s.rechecks_failed = 0;
                        s.lines_done += 1;
                        let took = started.elapsed().as_secs_f64();
                        s.per_line_s = Some(s.per_line_s.map_or(took, |avg| 0.7 * avg + 0.3 * took));
                    }
                    if spoken.sample_rate == rate {
                        return Ok(spoken.samples);
                    }
                    let samples = revoice_audio::resample::resample(&spoken.samples, spoken.sample_rate, rate)?;
                    play(&samples)?;
                    return Ok(samples);
                }
                Err(Fault::Server(r)) => {
                    server.take_out(&r);
                    last = Some(format!("{}: {r}", server.client.base));
                }
                Err(Fault::VoiceGone(r)) if line.reference.is_some() => {
                    self.uploads.forget(&server.client.base, line.reference.as_ref().expect("a reference"));
                    last = Some(r);
                }
                Err(other) => return Err(refused(other.reason())),
            }
        }
        Err(Error::busy(format!("engine {name}"), last.unwrap_or_else(|| "no server is up".into())))
    }

    /// Whether a line that failed on the servers `failed` may go to server
    /// `index`: one it has not failed on, or any once every server up has
    /// failed it.
    fn may_send(&self, failed: &[usize], index: usize) -> bool {
        !failed.contains(&index) || self.servers.iter().enumerate().all(|(i, s)| failed.contains(&i) || !s.state().up)
    }

    /// The server with the least work ahead of it that has room, among
    /// those `allowed`, and how many of `waiting` lines to send it.
    fn pick(&self, waiting: usize, allowed: impl Fn(usize) -> bool) -> Option<(usize, usize)> {
        self.pick_from(waiting, true, allowed)
    }

    /// As [`Self::pick`]; without `need_room` a busy server may be picked
    /// (a preview joins its queue), and with none up, any server is tried.
    fn pick_from(&self, waiting: usize, need_room: bool, allowed: impl Fn(usize) -> bool) -> Option<(usize, usize)> {
        // Asked before the states are locked: it reads them itself.
        let allowed: Vec<bool> = (0..self.servers.len()).map(&allowed).collect();
        let all: Vec<(usize, std::sync::MutexGuard<'_, ServerState>)> = self.servers.iter().enumerate().map(|(i, s)| (i, s.state())).collect();
        let any_up = all.iter().any(|(_, s)| s.up);
        let up: Vec<&(usize, std::sync::MutexGuard<'_, ServerState>)> = all.iter().filter(|(_, s)| s.up || (!need_room && !any_up)).collect();
        let has_room = |s: &ServerState| !need_room || s.requests < REQUESTS_PER_SERVER;
        if !up.iter().any(|(_, s)| has_room(s)) {
            return None;
        }
        // Spread the queue over the servers up, a few lines per request.
        let share = waiting.div_ceil(up.len() * REQUESTS_PER_SERVER).clamp(1, MAX_BATCH);
        let known: Vec<f64> = up.iter().filter_map(|(_, s)| s.per_line_s).collect();
        let typical = if known.is_empty() { 1.0 } else { known.iter().sum::<f64>() / known.len() as f64 };
        up.iter()
            .filter(|(i, s)| has_room(s) && allowed[*i])
            .map(|(i, s)| {
                let batch = if s.no_batch { 1 } else { share };
                let ahead = (s.in_flight + batch) as f64 * s.per_line_s.unwrap_or(typical);
                (*i, batch, ahead)
            })
            .min_by(|a, b| a.2.total_cmp(&b.2))
            .map(|(i, batch, _)| (i, batch))
    }
}

/// Sends `lines` to `server`: references uploaded first (or sent inline),
/// then one batch request, or one request per line.
fn send(server: &Server, uploads: &Uploads, engine: &str, lines: &[RemoteLine]) -> Result<Vec<Result<SpokenLine, Fault>>, Fault> {
    let mut items = Vec::with_capacity(lines.len());
    let mut refused: Vec<Option<Fault>> = Vec::with_capacity(lines.len());
    for line in lines {
        let mut item = line.item.clone();
        let mut fault = None;
        if let Some(reference) = &line.reference {
            match uploads.voice_on(engine, &server.client, reference) {
                Ok(voice) => item.voice = Some(voice),
                Err(Fault::Line(reason)) if reason.starts_with(super::client::NO_UPLOADS) => match reference.inline() {
                    Ok(inline) => item.ref_audio = Some(inline),
                    Err(e) => fault = Some(Fault::Line(e)),
                },
                Err(Fault::Server(reason)) => return Err(Fault::Server(reason)),
                Err(other) => fault = Some(other),
            }
        }
        items.push(item);
        refused.push(fault);
    }
    let ready: Vec<usize> = (0..items.len()).filter(|&i| refused[i].is_none()).collect();
    let mut out: Vec<Result<SpokenLine, Fault>> = refused.into_iter().map(|f| f.map_or(Err(Fault::Line(String::new())), Err)).collect();
    if ready.is_empty() {
        return Ok(out);
    }
    let batch_ok = !server.state().no_batch && ready.len() > 1;
    if batch_ok {
        let sent: Vec<SpeechItem> = ready.iter().map(|&i| items[i].clone()).collect();
        match server.client.speak_batch(&sent) {
            Ok(answers) => {
                for (&i, answer) in ready.iter().zip(answers) {
                    out[i] = answer;
                }
                return Ok(settle_lost_voices(server, uploads, lines, out));
            }
            Err(Fault::Server(reason)) if reason.starts_with(super::client::NO_BATCH) => {
                server.state().no_batch = true;
            }
            Err(fault) => return Err(fault),
        }
    }
    for &i in &ready {
        match server.client.speak(&items[i]) {
            Ok(audio) => out[i] = Ok(audio),
            Err(Fault::Server(reason)) => return Err(Fault::Server(reason)),
            Err(fault) => out[i] = Err(fault),
        }
    }
    Ok(settle_lost_voices(server, uploads, lines, out))
}

/// A voice the server lost: an uploaded reference is forgotten (so it is
/// uploaded again before the retry); a named voice it lacks is the line's fault.
fn settle_lost_voices(server: &Server, uploads: &Uploads, lines: &[RemoteLine], mut out: Vec<Result<SpokenLine, Fault>>) -> Vec<Result<SpokenLine, Fault>> {
    for (line, answer) in lines.iter().zip(out.iter_mut()) {
        if let Err(Fault::VoiceGone(reason)) = answer {
            match &line.reference {
                Some(reference) => uploads.forget(&server.client.base, reference),
                None => *answer = Err(Fault::Line(reason.clone())),
            }
        }
    }
    out
}
