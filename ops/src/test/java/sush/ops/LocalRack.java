package sush.ops;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import sush.ops.cli.Client;
import sush.ops.cli.RackCommand;
import sush.ops.daemon.Daemon;
import sush.ops.daemon.RackFile;
import sush.projections.job.SignerKey;

/** Test fixture: a rack written under a directory, its daemons in this JVM. */
final class LocalRack implements AutoCloseable {
    final Path dir;
    final RackFile rack;
    final SignerKey key;
    final List<Daemon> daemons = new ArrayList<>();

    /** A causal rack (at-most-once.md). */
    LocalRack(Path dir, int sleds) throws Exception {
        this(dir, sleds, sush.projections.fold.Ordering.CAUSAL);
    }

    /** A rack of {@code ordering}, its slots provisioned for it (signed: floor epoch 0). */
    LocalRack(Path dir, int sleds, sush.projections.fold.Ordering ordering) throws Exception {
        this.dir = dir;
        this.rack = RackCommand.create(dir, sleds, freePorts(sleds), ordering);
        this.key = SignerKey.fromPem(Files.readString(dir.resolve("signer.key")));
        for (RackFile.SledEntry s : rack.sleds()) {
            daemons.add(start(s));
        }
    }

    /** Starts sled {@code s}'s daemon; the next {@link #client} of it connects afresh. */
    Daemon start(RackFile.SledEntry s) throws Daemon.DaemonException {
        clients.remove(rack.sleds().indexOf(s));
        return Daemon.start(rack.settings(s, Optional.empty()));
    }

    /**
     * A whole-rack cold boot: every daemon closed, then every one started again. Gossip is kept
     * nowhere, so the sleds form a new universe knowing nothing but their boundary records.
     */
    void coldBoot() throws Daemon.DaemonException {
        daemons.forEach(Daemon::close);
        for (int i = 0; i < daemons.size(); i++) {
            daemons.set(i, start(rack.sleds().get(i)));
        }
    }

    private final java.util.Map<Integer, Client> clients = new java.util.concurrent.ConcurrentHashMap<>();

    /** A client of sled {@code i}, logged in with the rack's operator key on its first request. */
    Client client(int i) {
        return clients.computeIfAbsent(i, k -> clientOf(dir, "http://" + rack.sleds().get(k).api()));
    }

    /** A client with the operator key of the rack written in {@code dir}. */
    static Client clientOf(Path dir, String url) {
        return RackCommand.operatorClient(dir, url);
    }

    String url(int i) {
        return "http://" + rack.sleds().get(i).api();
    }

    /** Waits until every sled answers in one universe with every announcement. */
    void converge() throws Exception {
        for (int i = 0; i < 300; i++) {
            java.util.Set<String> nets = new java.util.HashSet<>();
            int seen = Integer.MAX_VALUE;
            for (int k = 0; k < rack.sleds().size(); k++) {
                try {
                    nets.add(client(k).get("/version").get("network").asString());
                    seen = Math.min(seen, client(k).get("/versions").get("sleds").size());
                } catch (Client.Failure f) {
                    nets.add("down");
                }
            }
            if (nets.size() == 1 && seen >= rack.sleds().size()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the rack did not converge");
    }

    static int freePorts(int sleds) throws java.io.IOException {
        return RackCommand.freePorts(sleds);
    }

    @Override
    public void close() {
        daemons.forEach(Daemon::close);
    }
}
