// Generated from the engine's Rust types (ts-rs) by crates/engine/tests/ui_types.rs.
// Do not edit: change the Rust type, then run
// `REVOICE_WRITE_UI_TYPES=1 cargo test -p revoice-engine --test ui_types`.

export type SegmentState = "stale" | "queued" | "rendering" | "ready" | "failed";
export type TimingStrategy = "natural" | "strict_slot" | "smart_fit" | "resynthesize";
export type Fit = { start: number, end: number, rate: number, trimmed: boolean, overlap: number | null, 
/**
 * The strategy that placed it (the line's own or the project's).
 */
strategy: TimingStrategy, 
/**
 * Seconds it runs past its slot into the silence before the next line.
 */
gapUsed: number, 
/**
 * Seconds of its render cut off at the end (after stretching), when trimmed.
 */
cut: number | null, 
/**
 * Seconds its render was longer than its slot (before any fitting).
 */
overflow: number, };
export type TakeCheck = { passed: boolean, heard: string, 
/**
 * Each problem, a sentence.
 */
problems: Array<string>, wordErrorRate: number, };
export type LineFlag = { "kind": "doesntFit", seconds: number, } | { "kind": "cut", seconds: number, } | { "kind": "overlap", seconds: number, } | { "kind": "failedCheck" } | { "kind": "unreadable", script: string, letters: string, voice: string, };
export type Segment = { id: number, trackId: number, start: number, end: number, text: string, speakerId: number | null, speed: number, gainDb: number, fadeIn: number, fadeOut: number, 
/**
 * The line's own strategy; `None`: the project's applies.
 */
strategy: TimingStrategy | null, locked: boolean, state: SegmentState, error: string | null, fit: Fit | null, 
/**
 * Seconds it lasts spoken at its own speed: predicted from the model's
 * durations before it renders (its take's length where not predicted).
 */
spoken: number | null, 
/**
 * Where it will land, from its spoken length, before it renders.
 */
planned: Fit | null, 
/**
 * Why it cannot ship as it stands; empty when it can.
 */
flags: Array<LineFlag>, 
/**
 * Its take heard back, when it has been since its take or fit changed.
 */
check: TakeCheck | null, };
export type Speaker = { id: number, name: string, voice: string, languageVoices: { [key in string]: string }, 
/**
 * Their lane never sounds.
 */
muted: boolean, 
/**
 * Their lane is soloed.
 */
solo: boolean, 
/**
 * Their lane's level, dB.
 */
levelDb: number, 
/**
 * Whether their lane sounds now (not muted, and soloed when any lane is).
 */
audible: boolean, };
export type Lane = { muted: boolean, solo: boolean, levelDb: number, 
/**
 * Whether it sounds now.
 */
audible: boolean, };
export type Marker = { id: number, 
/**
 * Seconds.
 */
at: number, name: string, };
export type Track = { id: number, language: string, segments: Array<Segment>, };
export type Project = { id: number, name: string, strategy: TimingStrategy, 
/**
 * The first bed stem's file, if there is a bed.
 */
bed: string | null, 
/**
 * Every bed stem, in order.
 */
beds: Array<BedStem>, 
/**
 * The recording or video holding the original dialogue, if any.
 */
original: string | null, 
/**
 * The picture the dub is made against, if any.
 */
video: string | null, 
/**
 * The cast sheet its speakers take their voices from, if any.
 */
cast: string | null, 
/**
 * The rate its timecode runs at (`"25"`, `"29.97df"`…): the picture's, or the project's setting.
 */
frameRate: string, 
/**
 * Programme length in seconds: the latest slot end or placed line end.
 */
length: number, speakers: Array<Speaker>, 
/**
 * The lane of lines without a speaker.
 */
noSpeakerLane: Lane, 
/**
 * In time order.
 */
markers: Array<Marker>, tracks: Array<Track>, canUndo: boolean, canRedo: boolean, };
export type ProjectSummary = { id: number, name: string, updatedAt: string, };
export type ExportedFile = { path: string, seconds: number | null, 
/**
 * For a mix: its loudness against the delivery, one line.
 */
loudness: string | null, };
export type VideoInfo = { 
/**
 * The container as ffprobe names it (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`).
 */
container: string, 
/**
 * The video codec (`h264`, `vp9`, `prores`…).
 */
codec: string, width: number, height: number, 
/**
 * Frames per second.
 */
frameRate: number, durationS: number, 
/**
 * The audio streams, in order.
 */
audio: Array<AudioStream>, };
export type AudioStream = { codec: string, channels: number, 
/**
 * Its language tag, when it has one (`eng`).
 */
language: string | null, };
export type AttachedVideo = { 
/**
 * The video's absolute path.
 */
path: string, info: VideoInfo, 
/**
 * Its audio became the project's original dialogue (it had none).
 */
originalDialogue: boolean, 
/**
 * Its audio became the project's bed (asked for).
 */
bed: boolean, };
export type PictureSource = { 
/**
 * Where the window loads it from.
 */
url: string, 
/**
 * The video itself (its codec, size and frame rate).
 */
info: VideoInfo, 
/**
 * The window plays a proxy made for it, not the video's own stream.
 */
proxy: boolean, };
export type BedStem = { id: number, projectId: number, 
/**
 * The file's absolute path.
 */
file: string, 
/**
 * Level on top of the mix's bed level, dB.
 */
gainDb: number, 
/**
 * Ducks under the voice (dialogue-free music); off for effects that must stay.
 */
ducked: boolean, position: number, };
export type RemoteEngineSettings = { 
/**
 * How voices on it are named: `NAME/voice`.
 */
name: string, 
/**
 * Base URLs of its servers (`http://host:8880`), one or several.
 */
urls: Array<string>, 
/**
 * Bearer token, if its servers ask for one.
 */
api_key: string, 
/**
 * The `model` sent with each request (empty: the server's default).
 */
model: string, 
/**
 * Seconds a request may take before its server counts as hung
 * (default [`RemoteEngineSettings::DEFAULT_TIMEOUT_S`]).
 */
timeout_s?: number, };
export type Capabilities = { formats: Array<string>, batch: boolean, streaming: boolean, voiceUpload: boolean, 
/**
 * Takes a reference recording (`task_type: Base`, `ref_audio`).
 */
cloning: boolean, };
export type NodeReport = { url: string, 
/**
 * Answered at all.
 */
reachable: boolean, 
/**
 * Ready to speak (its model loaded).
 */
ready: boolean, version: string | null, model: string | null, 
/**
 * How long a one-word render took, ms.
 */
speakMs: number | null, capabilities: Capabilities, 
/**
 * Why it is not reachable or not ready.
 */
problem: string | null, };
export type EngineReport = { name: string, model: string, nodes: Array<NodeReport>, 
/**
 * What every ready server can do.
 */
capabilities: Capabilities, };
export type ServerStatus = { url: string, 
/**
 * In rotation.
 */
up: boolean, 
/**
 * Why it is out of rotation.
 */
problem: string | null, 
/**
 * The last fault it had, kept after it is back in rotation.
 */
lastFault: string | null, 
/**
 * Lines sent to it and not yet answered.
 */
inFlight: number, 
/**
 * Its average time per line, ms (none before its first answer).
 */
msPerLine: number | null, linesDone: number, failures: number, };
export type EngineStatus = { name: string, servers: Array<ServerStatus>, };
export type OriginalMonitor = { "mode": "off" } | { "mode": "under", gainDb: number, } | { "mode": "solo" };
export type HandoffFormat = "rpp" | "otio" | "edl";
export type CastSheet = { id: number, name: string, 
/**
 * By speaker name.
 */
members: Array<CastMember>, updatedAt: string, };
export type CastMember = { speaker: string, 
/**
 * The voice of their lines in any language without one of its own.
 */
voice: string, 
/**
 * Voices by track language.
 */
languageVoices: { [key in string]: string }, };
export type Saying = { "phonemes": string } | { "respelling": string };
export type Pronunciation = { 
/**
 * The word or words as written (matched whole, in any case).
 */
word: string, saying: Saying, 
/**
 * From the global dictionary rather than the project's.
 */
global: boolean, };
export type Peaks = { start: number, secondsPerBucket: number, min: Array<number>, max: Array<number>, };
export type PlaybackView = { projectId: number | null, trackId: number | null, playing: boolean, position: number, length: number, looping: [number, number] | null, ended: boolean, 
/**
 * From the last play request to the first audible sample, and voice sample.
 */
firstSoundMs: number | null, firstVoiceMs: number | null, 
/**
 * Why the last play request failed.
 */
error: string | null, };
export type ProgrammeClip = { segmentId: number, 
/**
 * Where it starts on the timeline, seconds.
 */
start: number, seconds: number, 
/**
 * Its loudest sample, as laid (after fitting, before the lane's gain).
 */
peak: number, 
/**
 * SHA-256 of its samples as laid, first 16 hex digits.
 */
fingerprint: string, };
export type StudioEvent = { "kind": "modelLoading", loading: boolean, } | { "kind": "renderProgress", projectId: number, done: number, total: number, rendered: number, } | { "kind": "segmentState", segmentId: number, state: SegmentState, error: string | null, } | { "kind": "renderFinished", projectId: number, rendered: number, fresh: number, failed: number, cancelled: boolean, error: string | null, } | { "kind": "listenProgress", projectId: number, done: number, total: number, retaking: number | null, } | { "kind": "segmentChecked", segmentId: number, check: TakeCheck, retaken: boolean, } | { "kind": "listenFinished", projectId: number, checked: number, failing: number, retaken: number, cancelled: boolean, error: string | null, } | { "kind": "playback" } & PlaybackView | { "kind": "previewFinished", segmentId: number, firstSoundMs: number | null, error: string | null, } | { "kind": "voicePreviewFinished", voice: string, firstSoundMs: number | null, error: string | null, } | { "kind": "mediaHeard", seconds: number, } | { "kind": "translating", projectId: number, done: number, total: number, } | { "kind": "lengthsPredicted", projectId: number, lines: number, };
export type SegmentEdit = { text?: string, start?: number, end?: number, speakerId?: number, speed?: number, gainDb?: number, 
/**
 * The line's own timing strategy; `null` clears it (the project's applies).
 */
strategy?: TimingStrategy | null, };
export type LaneMixEdit = { muted?: boolean, solo?: boolean, 
/**
 * dB, from -60 to +12.
 */
levelDb?: number, };
export type ReplaceOptions = { 
/**
 * Only text in the same case matches (any case by default).
 */
matchCase: boolean, 
/**
 * Only whole words match: no letter, digit or `_` right before or after.
 */
wholeWord: boolean, 
/**
 * Only these lines (ids on the track); every line of the track when absent.
 */
only?: Array<number>, };
export type SettingsEdit = { outputDevice?: string, batchWidth?: number, segmentStoreMb?: number, renderCacheMb?: number, apiEnabled?: boolean, apiPort?: number, listenBack?: boolean, resynthesizeMaxSpeed?: number, fitMinutes?: number, };
export type TakeView = { id: number, seed: number, seconds: number, createdAt: string, 
/**
 * The line's audio now.
 */
active: boolean, 
/**
 * Rendered from the line as it is now (text, voice, speed, slot), so
 * picking it needs no render; other takes are of an earlier version.
 */
current: boolean, };
export type VoiceChoice = { name: string, 
/**
 * A language tag, `library` for a library voice, or `remote` for a
 * voice on a remote engine (`fleet/af_bella`, `fleet/@Narrator`).
 */
language: string, gender: string, };
export type MatchView = { voice: string, similarity: number, };
export type QualityReport = { 
/**
 * Length of the recording.
 */
seconds: number, 
/**
 * Time marked as speech by the voice-activity detector (30 ms windows).
 */
speech_seconds: number, 
/**
 * Largest sample magnitude, dBFS.
 */
peak_dbfs: number, 
/**
 * RMS level of the whole recording, dBFS.
 */
rms_dbfs: number, 
/**
 * Share of samples at full scale (|x| ≥ 0.999).
 */
clipped_fraction: number, 
/**
 * Level of the quietest 10 % of 30 ms windows, dBFS.
 */
noise_floor_dbfs: number, 
/**
 * RMS level of the speech windows over the noise floor, dB.
 */
snr_db: number, 
/**
 * Things that make the match less reliable, in words.
 */
warnings: Array<string>, };
export type FitFigures = { 
/**
 * The language the voice was fitted to speak.
 */
language: string, bestStock: string, bestStockSimilarity: number, blendSimilarity: number, fittedSimilarity: number, 
/**
 * The fitted style without its tone match (when it has one).
 */
styleOnlySimilarity: number | null, 
/**
 * The tone match's largest boost or cut in dB (when it has one).
 */
toneLargestDb: number | null, 
/**
 * How natural the best stock voice and the fitted voice sound on the
 * same sentences (DNSMOS's speech-signal score, 1 to 5; fits that did
 * not listen for it have none).
 */
bestStockNaturalness: number | null, fittedNaturalness: number | null, generations: number, seconds: number, };
export type FitInProgress = { 
/**
 * The language the voice is being fitted to speak.
 */
language: string, 
/**
 * `None` until its first generation is judged (or while it waits its turn).
 */
generation: number | null, seconds: number, secondsLeft: number, startSimilarity: number, bestSimilarity: number, };
export type LibraryVoice = { name: string, description: string, referenceText: string, consent: string, fileSize: number, mimeType: string, createdAt: string, version: number, 
/**
 * `None` when the stored artifact cannot be read.
 */
quality: QualityReport | null, 
/**
 * The closest stock voices, most similar first (a match, not a clone).
 */
matches: Array<MatchView>, 
/**
 * The language the voice was made for (a line in another language
 * speaks that language's closest voices, or its fit for it).
 */
language: string, 
/**
 * What the voice speaks with in its language: a blend of the closest
 * stock voices (until it is fitted).
 */
blend: string, 
/**
 * `matched` (the blend speaks) or `fitted` (a voice fitted to the
 * recording by search speaks: not a clone either), in its language.
 */
kind: string, 
/**
 * The figures of each fit, one per language it was fitted to speak
 * (its own language first).
 */
fits: Array<FitFigures>, 
/**
 * The fits queued or running now, in the order they were asked for.
 */
fitting: Array<FitInProgress>, };
export type VoiceLibraryView = { stock: Array<VoiceChoice>, library: Array<LibraryVoice>, };
export type SpeakerClip = { speakerId: number, recording: string, 
/**
 * What is said in it, when known (cut from the original dialogue);
 * otherwise Whisper hears it.
 */
text?: string, };
export type SpeakerVoiced = { speakerId: number, speaker: string, 
/**
 * The library voice made for them and now theirs on the track, when
 * that worked.
 */
voice: string | null, 
/**
 * Whether a fit of that voice is queued or running.
 */
fitting: boolean, 
/**
 * Why the speaker got no voice, or no fit (the voice still speaks as
 * its matched blend).
 */
note: string | null, };
export type SettingsView = { dataDir: string, configFile: string, outputDevice: string, 
/**
 * Output devices found now: (id, name, is the default).
 */
devices: Array<[string, string, boolean]>, 
/**
 * Why no device could be listed, if none could.
 */
devicesError: string | null, 
/**
 * 0: the width measured best on this machine.
 */
batchWidth: number, segmentStoreMb: number, renderCacheMb: number, 
/**
 * Whisper hears each line after a render; a failing line is taken again once.
 */
listenBack: boolean, 
/**
 * The fastest fit-by-re-synthesis may make a line speak (1.0–2.0).
 */
resynthesizeMaxSpeed: number, 
/**
 * Minutes a background voice fit may search.
 */
fitMinutes: number, apiPort: number, 
/**
 * The saved file differs from what the running engine started with.
 */
restartNeeded: boolean, };
export type TranslatorSettings = { 
/**
 * How the studio names it (`revoice project translate --translator NAME`).
 */
name: string, 
/**
 * Its base URL (`http://127.0.0.1:8080` or `…/v1`).
 */
url: string, 
/**
 * The `model` sent with each request (empty: the server's default).
 */
model: string, 
/**
 * Bearer token, if the server asks for one.
 */
api_key: string, 
/**
 * Seconds a request may take (default [`TranslatorSettings::DEFAULT_TIMEOUT_S`]).
 */
timeout_s?: number, 
/**
 * Sampling temperature sent with each request (default
 * [`TranslatorSettings::DEFAULT_TEMPERATURE`]); 0 answers the same
 * lines the same way each time.
 */
temperature?: number, 
/**
 * Lines sent in one request (default
 * [`TranslatorSettings::DEFAULT_BATCH_LINES`]): a small local model
 * keeps to the task better with fewer, a hosted one costs less with more.
 */
batch_lines?: number, };
export type TranslatorView = { name: string, url: string, 
/**
 * The model asked for (empty: the server's default).
 */
model: string, 
/**
 * Where the lines go (`127.0.0.1:8080`).
 */
host: string, 
/**
 * Whether that is this machine.
 */
local: boolean, hasApiKey: boolean, };
export type TranslatorCheck = { 
/**
 * The models it lists (empty when it lists none).
 */
models: Array<string>, 
/**
 * What "Good morning." became in Spanish.
 */
answered: string, seconds: number, };
export type TranslateRequest = { projectId: number, 
/**
 * The language of the track to translate (the project's first track when `None`).
 */
from: string | null, 
/**
 * The language to translate into: its track is made when the project has none.
 */
to: string, 
/**
 * The translator's name (the first configured when `None`).
 */
translator: string | null, 
/**
 * Source lines to translate again although they were translated before.
 */
again: Array<number>, 
/**
 * Whether lines edited by hand since their translation may be translated again.
 */
overwriteEdited: boolean, 
/**
 * What the translator should keep in mind (register, audience, terms).
 */
notes: string, };
export type DroppedTerm = { 
/**
 * The translated line (on the target track).
 */
segmentId: number, term: string, 
/**
 * The translation the glossary gives it, which the line lacks.
 */
translation: string, };
export type FailedLine = { sourceSegmentId: number, 
/**
 * Why its batch failed.
 */
reason: string, };
export type TranslateReport = { 
/**
 * The translator and its model, as each line records it.
 */
translator: string, 
/**
 * Where the lines went (`127.0.0.1:8080`), and whether that is this machine.
 */
host: string, local: boolean, from: string, trackId: number, 
/**
 * Lines translated now.
 */
translated: number, 
/**
 * Lines translated before and left as they were.
 */
already: number, 
/**
 * Of those, lines whose source was edited after they were translated.
 */
sourceChanged: Array<number>, 
/**
 * Source lines asked for again whose translation was edited by hand, left as they were.
 */
keptEdited: Array<number>, 
/**
 * Of the lines translated now (with a local voice), how many fit
 * their slots at no more than [`MAX_RATE`] as first translated, and
 * after the long ones were asked for shorter.
 */
fitBefore: number, fitAfter: number, 
/**
 * Lines translated now whose predicted length is known.
 */
sized: number, 
/**
 * Lines said shorter to fit.
 */
shortened: Array<number>, 
/**
 * Lines (on the translated track) still too long for their slots.
 */
tooLong: Array<number>, 
/**
 * Why the lines were not sized to their slots (the speech model could not load).
 */
notSized: string | null, 
/**
 * Glossary terms the lines translated now leave out (as they stand after sizing).
 */
glossaryDropped: Array<DroppedTerm>, 
/**
 * Source lines whose batch the translator could not answer: nothing of
 * it was written, and the same request later translates them.
 */
failed: Array<FailedLine>, };
export type GlossaryEntry = { id: number, 
/**
 * The target language tag it applies to (`es`, `pt-BR`).
 */
language: string, 
/**
 * The term as the scripts write it.
 */
term: string, 
/**
 * How it is translated.
 */
translation: string, };
export type LineTranslation = { segmentId: number, sourceSegmentId: number, 
/**
 * The source line's text now (empty when the source line was deleted since).
 */
sourceText: string, 
/**
 * The source text the translation was made from.
 */
translatedFrom: string, 
/**
 * Whether the source line's text differs from what was translated (or it is gone).
 */
sourceChanged: boolean, 
/**
 * Whether the line's text differs from what the translator wrote.
 */
edited: boolean, 
/**
 * The translator and its model (`llama (gemma3)`).
 */
translator: string, 
/**
 * When it was translated (`2025-01-31T12:00:00.000Z`).
 */
translatedAt: string, 
/**
 * Glossary terms of the source it was made from that the line's text now leaves out.
 */
droppedTerms: Array<string>, };
export type TrackTranslations = { trackId: number, 
/**
 * The track it translates (`None`: it was not made by translation).
 */
sourceTrackId: number | null, sourceLanguage: string | null, 
/**
 * Its translated lines, in the track's order.
 */
lines: Array<LineTranslation>, };
export type ErrorKind = "notFound" | "invalidInput" | "conflict" | "busy" | "cancelled" | "internal";
export type ErrorReport = { kind: ErrorKind, message: string, 
/**
 * The root error's input (invalid input, a conflict), what was not
 * found, or the setting a config file's refusal opens with
 * (`[dub] segment_store_mb`); `None` for other errors.
 */
input: string | null, };
export type CheckStatus = "ok" | "warning" | "problem";
export type Check = { 
/**
 * Short name: "Data folder", "Audio output".
 */
name: string, status: CheckStatus, 
/**
 * What was found.
 */
detail: string, 
/**
 * What to do about it, when something is wrong.
 */
fix: string | null, };
export type ModelAsset = { 
/**
 * Folder name under `<data dir>/models/`, including the model revision.
 */
id: string, 
/**
 * What a person calls it.
 */
name: string, 
/**
 * What the engine uses it for.
 */
purpose: string, };
export type AssetState = { "state": "installed", files: number, bytes: number, } | { "state": "missing" } | { "state": "damaged", reason: string, };
export type ModelAssetStatus = { asset: ModelAsset, dir: string, } & ({ "state": "installed", files: number, bytes: number, } | { "state": "missing" } | { "state": "damaged", reason: string, });
export type OutputDevice = { 
/**
 * Stable id to store in settings (`alsa:null`).
 */
id: string, 
/**
 * Human-readable name.
 */
name: string, 
/**
 * The host's default output device.
 */
is_default: boolean, 
/**
 * Default stream format, e.g. `2 ch, 48000 Hz, f32`; `None` when the
 * device cannot report one (it may still open with an explicit format).
 */
default_format: string | null, };
export type OutputDevices = { 
/**
 * Audio host name (`ALSA`, `CoreAudio`, `WASAPI`).
 */
host: string, devices: Array<OutputDevice>, 
/**
 * Why devices could not be listed, if they could not.
 */
error: string | null, };
export type Diagnosis = { engine_version: string, data_dir: string, config_file: string, log_dir: string, database: string, sqlite_version: string | null, models: Array<ModelAssetStatus>, audio: OutputDevices, 
/**
 * The output device playback would use, if there is one.
 */
audio_output: string | null, checks: Array<Check>, 
/**
 * When the report was made (UTC, RFC 3339).
 */
checked_at: string, };
