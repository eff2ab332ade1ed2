#pragma once
/// \file
/// The runs of `attractor serve`: starting them from API requests, a queue that lets at most
/// `max_concurrent` execute at once, cancelling, resuming, and describing every run under the
/// logs root (those of this server merged with what `run_summary` reads from disk).
///
/// Life of a run this server starts (docs/server.md section 1):
///
///     POST /pipelines --> queued --(a slot frees)--> running --> completed | failed | stopped
///                           |                       |    ^
///                           |        (a gate asks)  v    | (a slot frees)
///                           |                at a gate --> queued again once answered
///                           |                          |
///                           +--cancel--> cancelled <---+--cancel (engine stops at a safe point)
///
/// A run's thread waits for its slot, takes the run lock, runs the same engine as `attractor
/// run`, and releases both. While the run waits for a person at a human gate it holds no slot:
/// it gives the slot back when the gate asks and waits for one again (ahead of the runs that have
/// not started) once the answer arrives. Every run is a plain run directory: after a restart the server reads
/// its state from disk like `attractor runs` does.
///
/// A run accepted but stopped before the engine wrote its first checkpoint (queued when the
/// server stopped, or killed in its first moments) has only `request.json`, the request as
/// accepted: it shows as `interrupted` ("stopped before it started"), and resuming it starts it
/// afresh from that file.

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <variant>

#include <nlohmann/json.hpp>

#include "attractor/launch/run_launch.h"
#include "attractor/server/event_log.h"
#include "attractor/server/web_interviewer.h"

namespace attractor {

struct ServerConfig {
  std::string logs_root = "checkpoints";
  std::string graphs_dir = "graphs";
  std::size_t max_concurrent = 1;
  std::size_t max_dot_bytes = 1 << 20;
  /// Pipelines may run commands (`--allow-commands`; launch/command_use.h says which stages do).
  /// Off: such a run is refused with 403 before anything of it is written.
  bool allow_commands = false;
  std::size_t event_memory = 4096;  ///< events of a live run kept for its streams
  /// `--workdir-root`: the directory runs work in (agents, cli agents, tool commands) and the
  /// only tree a request's `workdir` may name a directory in; "" = the current directory.
  std::string workdir_root;
  /// `--sandbox`: the weakest sandbox level any command of a run of this server gets (RunFlags::
  /// sandbox_floor); a request can ask for a stronger one, never a weaker one.
  std::string sandbox_floor = "workspace";
};

/// An HTTP answer in the making: status and JSON body.
struct ApiReply {
  int status = 200;
  nlohmann::json body;
};

/// One run this server executes (or queued, or finished executing in this process).
struct ServedRun {
  std::string id;
  std::string run_dir;
  LaunchRequest request;
  PreparedRun prepared;
  std::shared_ptr<WebInterviewer> interviewer;  ///< null when answers or auto-approve decide
  std::shared_ptr<EventLog> events;
  CancelToken cancel;
  std::thread thread;

  // Guarded by RunRegistry::mutex_.
  std::string state = "queued";  ///< queued, running, done
  bool holds_slot = false;       ///< counts in RunRegistry::running_
  int gates_waiting = 0;         ///< questions being asked right now (parallel branches ask at once)
  bool cancel_requested = false;
  std::string final_status;  ///< once done: completed, failed, cancelled, stopped
  std::string reason;
  std::string current_node;
};

class RunRegistry {
 public:
  explicit RunRegistry(ServerConfig config);
  /// Cancels every run and waits for their threads (checkpoints stay valid).
  ~RunRegistry();

  /// `POST /pipelines`: 201 {"id", "status"}; 400 for a bad request or a graph that cannot run.
  ApiReply start(const nlohmann::json& body);
  /// `POST /pipelines/{id}/resume`: 202, 409 when it is running here or elsewhere, 400 when the
  /// resume checks refuse it.
  ApiReply resume(const std::string& id);
  /// `POST /pipelines/{id}/cancel`: 200, or 409 when it is not queued or running here.
  ApiReply cancel(const std::string& id);
  /// `POST /pipelines/{id}/rewind` with {"to": "NODE[@VISIT]"} (docs/workspace.md, section 6):
  /// 200 with what the rewind did; 400 for a bad point or an in-place run (with the valid
  /// points), 409 while the run is queued or running, 500 when git or the disk fails.
  ApiReply rewind(const std::string& id, const nlohmann::json& body);
  /// `POST /pipelines/{id}/fork` with {"at": "NODE[@VISIT]"}: 201 with the new run's `id` (a new
  /// run directory under the logs root; the request names no path), errors as for rewind.
  ApiReply fork(const std::string& id, const nlohmann::json& body);

  /// The run directory of an existing run id (run_views.h rules), else nullopt.
  std::optional<std::string> run_dir_of(const std::string& id) const;
  /// `GET /pipelines/{id}`; nullopt for an unknown id.
  std::optional<nlohmann::json> describe(const std::string& id) const;
  /// `GET /pipelines`: every run, newest first.
  nlohmann::json list() const;
  /// The run as this server executes it, or null.
  std::shared_ptr<ServedRun> served(const std::string& id) const;
  /// The pipeline file of a run of this server or of one that never started (its request's), ""
  /// for others (their manifest names it).
  std::string graph_path(const std::string& id) const;
  /// The node a live run is at ("" when none or not live).
  std::string current_node(const std::string& id) const;
  /// {"running": N, "queued": M, "at_gate": G}: runs holding a slot, runs waiting for one, and
  /// runs waiting at a human gate (holding none).
  nlohmann::json counts() const;

  /// Cancels every queued and running run and waits for them.
  void shutdown();

  const ServerConfig& config() const { return config_; }

 private:
  /// 409 while run `id` is queued or running in this server. With `forget`, a finished run's
  /// record is dropped, so its event streams read the file (which a rewind appends to).
  std::optional<ApiReply> refuse_live(const std::string& id, bool forget);
  /// A stopped run's directory and the point a rewind or fork body names under `key`.
  struct StoppedPoint {
    std::string run_dir;
    std::string point;
  };
  /// The run and point of a rewind or fork request, or its 404, 400 or 409 reply (refuse_live).
  std::variant<StoppedPoint, ApiReply> stopped_point(const std::string& id, const nlohmann::json& body, const char* key,
                                                     bool forget);
  /// Builds the request of a new run from the API body, writing the submitted DOT and inline
  /// files into `run_dir`. Returns an error reply or nullopt when the request is good.
  std::optional<ApiReply> fill_request(const nlohmann::json& body, LaunchRequest& request, std::string& dot);
  /// A run of `request` under `id`, asking its gates through the API unless answers or
  /// auto-approve decide them (question ids continue an earlier part's), its events numbered
  /// from `first_event_id`; the error reply when the pipeline cannot run.
  std::variant<std::shared_ptr<ServedRun>, ApiReply> make_run(const std::string& id, LaunchRequest request,
                                                              std::uint64_t first_event_id);
  ApiReply enqueue(std::shared_ptr<ServedRun> run, int status);
  /// The working directory of a run: `requested` (a request's `workdir`, relative to the root or
  /// absolute) resolved inside the workdir root, or the root when null; else an error reply.
  std::variant<std::string, ApiReply> workdir_of(const nlohmann::json& requested) const;
  /// The working directory a run's request.json recorded, checked again; the root without one.
  std::variant<std::string, ApiReply> saved_workdir(const std::string& dir) const;
  /// Resumes a run that never reached its first checkpoint by starting it from request.json.
  ApiReply restart_unstarted(const std::string& id, const std::string& dir);
  void execute(const std::shared_ptr<ServedRun>& run);
  /// Waits until `run` may start (true) or was cancelled while queued (false).
  bool wait_for_slot(const std::shared_ptr<ServedRun>& run);
  /// Waits in `line` until `run` is at its front and a slot is free (true, the slot taken) or the
  /// run is cancelled (false, out of the line).
  bool take_slot(std::unique_lock<std::mutex>& lock, ServedRun& run, std::deque<std::string>& line);
  /// A gate of `run` asks a person: the first gives the run's slot back.
  void gate_waiting(ServedRun& run);
  /// A gate of `run` has its answer: after the last one the run waits for a slot again.
  void gate_answered(ServedRun& run);
  void finish(const std::shared_ptr<ServedRun>& run, const std::string& status, const std::string& reason);
  nlohmann::json live_fields(const ServedRun& run, nlohmann::json summary) const;

  ServerConfig config_;
  mutable std::mutex mutex_;
  std::condition_variable slots_;
  std::map<std::string, std::shared_ptr<ServedRun>> runs_;
  std::deque<std::string> queue_;
  std::deque<std::string> returning_;  ///< runs past a gate waiting for a slot; served before queue_
  std::size_t running_ = 0;
  std::size_t at_gate_ = 0;
  bool shutting_down_ = false;
};

}  // namespace attractor
