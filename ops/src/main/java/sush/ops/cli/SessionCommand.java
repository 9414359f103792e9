package sush.ops.cli;

import java.util.Map;
import java.util.concurrent.Callable;

import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import tools.jackson.databind.JsonNode;

/** {@code sush session start|stop|status}. */
@Command(name = "session", description = "Start, stop or show the operator session.",
        subcommands = {SessionCommand.Start.class, SessionCommand.Stop.class, SessionCommand.Status.class})
public final class SessionCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        picocli.CommandLine.usage(this, System.out);
        return 0;
    }

    @Command(name = "start", description = "Start a session (it supersedes the active one).")
    static final class Start implements Callable<Integer> {
        @Mixin
        Global g;

        @picocli.CommandLine.Option(names = "--wait", description = "wait until the session is active on this sled")
        boolean await;

        @Override
        public Integer call() {
            try {
                JsonNode r = g.client().post("/sessions/start", Map.of());
                String id = r.get("session_id").asString();
                if (await) {
                    for (int i = 0; i < 200 && !id.equals(active(g.client())); i++) {
                        Client.sleep(50);
                    }
                }
                g.print(Map.of("session_id", id), id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "stop", description = "Stop the active session.")
    static final class Stop implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                String id = active(g.client());
                if (id == null) {
                    throw new Client.Failure(4, "no-session", "no session is active");
                }
                g.client().post("/sessions/" + id + "/stop", Map.of());
                g.print(Map.of("session_id", id, "stopping", true), "stopping " + id);
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    @Command(name = "status", description = "Show the active session.")
    static final class Status implements Callable<Integer> {
        @Mixin
        Global g;

        @Override
        public Integer call() {
            try {
                JsonNode s = g.client().get("/sessions");
                g.print(s, s.get("session_id").asString() + " (started by " + Client.printable(s.get("starter")
                        .asString()) + " through " + Client.printable(s.get("acceptor").asString()) + ")");
                return 0;
            } catch (Client.Failure f) {
                return g.fail(f);
            }
        }
    }

    /** The active session's id on the sled, or null. */
    static String active(Client c) throws Client.Failure {
        try {
            return c.get("/sessions").get("session_id").asString();
        } catch (Client.Failure f) {
            if (f.code().equals("no-session")) {
                return null;
            }
            throw f;
        }
    }
}
