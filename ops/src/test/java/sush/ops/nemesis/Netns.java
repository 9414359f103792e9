package sush.ops.nemesis;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The nemesis's network (issue 38): one network namespace per sled, each joined to a bridge in
 * the root namespace by a veth pair, on a private /24 that exists only on this machine. The
 * operator's client lives in the root namespace and reaches every sled through the bridge.
 *
 * <p>This kernel has no {@code netem}, {@code prio} nor tc actions, so each sled's interface
 * sends through an {@code htb} qdisc of two classes: 1:10 takes everything (a {@code pfifo} of
 * 100 packets; the nemesis lowers its rate for a congested link: queueing delay, then tail
 * loss), and 1:40 is a black hole (a {@code pfifo} of limit 0) that only packets a u32 filter
 * sends there reach. A partition from sled {@code a} to sled {@code b} is such a filter on
 * {@code a} matching {@code b}'s address: packets vanish, TCP connections hang rather than close,
 * as across a failed switch. Random loss is {@code iptables-legacy}'s statistic match in the
 * sled's namespace. {@link #close} removes the namespaces (their veths go with them) and the
 * bridge, whatever happened before.
 */
final class Netns implements AutoCloseable {
    /** The rate of a healthy link. */
    private static final String FAST = "10gbit";
    private final String tag;
    private final int subnet;
    private final int sleds;
    private final List<String> created = new ArrayList<>();

    /** {@code tag}: a few hex digits naming this run's interfaces and namespaces; {@code subnet} 1-250. */
    Netns(String tag, int subnet, int sleds) {
        this.tag = tag;
        this.subnet = subnet;
        this.sleds = sleds;
    }

    String ns(int i) {
        return "snm" + tag + "-" + i;
    }

    String ip(int i) {
        return "10.77." + subnet + "." + (10 + i);
    }

    String hostIp() {
        return "10.77." + subnet + ".1";
    }

    private String bridge() {
        return "snmb" + tag;
    }

    private String veth(int i) {
        return "snmv" + tag + "-" + i;
    }

    /** Whether this machine lets us make namespaces (root, and a kernel that allows them). */
    static String unavailable() {
        String probe = "snmprobe" + ProcessHandle.current().pid() % 10000;
        String why = Shell.quietly("ip", "netns", "add", probe);
        if (why != null) {
            return "network namespaces are not allowed here (" + why + ")";
        }
        Shell.quietly("ip", "netns", "del", probe);
        for (String tool : new String[] {"tc", "ip", "iptables-legacy"}) {
            if (Shell.quietly("sh", "-c", "command -v " + tool) != null) {
                return tool + " is not installed";
            }
        }
        return null;
    }

    /** Makes the bridge, the namespaces, the veths, the addresses and the qdiscs. */
    void up() throws IOException {
        Shell.run("ip", "link", "add", bridge(), "type", "bridge");
        created.add("bridge");
        Shell.run("ip", "addr", "add", hostIp() + "/24", "dev", bridge());
        Shell.run("ip", "link", "set", bridge(), "up");
        for (int i = 0; i < sleds; i++) {
            Shell.run("ip", "netns", "add", ns(i));
            created.add(ns(i));
            Shell.run("ip", "link", "add", veth(i), "type", "veth", "peer", "name", "eth0", "netns", ns(i));
            Shell.run("ip", "link", "set", veth(i), "master", bridge());
            Shell.run("ip", "link", "set", veth(i), "up");
            inNs(i, "ip", "link", "set", "lo", "up");
            inNs(i, "ip", "addr", "add", ip(i) + "/24", "dev", "eth0");
            inNs(i, "ip", "link", "set", "eth0", "up");
            inNs(i, "tc", "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "10", "r2q",
                    "100000");
            inNs(i, "tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb", "rate", FAST);
            inNs(i, "tc", "qdisc", "add", "dev", "eth0", "parent", "1:10", "handle", "10:", "pfifo", "limit", "100");
            inNs(i, "tc", "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:40", "htb", "rate", FAST);
            inNs(i, "tc", "qdisc", "add", "dev", "eth0", "parent", "1:40", "handle", "40:", "pfifo", "limit", "0");
        }
    }

    private void inNs(int i, String... cmd) throws IOException {
        Shell.run(Shell.in(ns(i), List.of(cmd)).toArray(String[]::new));
    }

    /** Packets from sled {@code from} to sled {@code to} vanish (one way; call twice for both). */
    void drop(int from, int to) throws IOException {
        inNs(from, "tc", "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio", "1", "u32",
                "match", "ip", "dst", ip(to) + "/32", "flowid", "1:4");
    }

    /** Sled {@code i}'s link is congested: it sends at {@code kbit} kbit/s, queueing up to 100 packets, dropping the rest. */
    void congest(int i, int kbit) throws IOException {
        inNs(i, "tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb", "rate", kbit
                + "kbit");
    }

    /** Each packet sled {@code i} sends is lost with probability {@code pct}%. */
    void lose(int i, int pct) throws IOException {
        inNs(i, "iptables-legacy", "-A", "OUTPUT", "-m", "statistic", "--mode", "random", "--probability",
                String.format(Locale.ROOT, "%.2f", pct / 100.0), "-j", "DROP");
    }

    /** Sled {@code i}'s link is down (root side): nobody reaches it, the client neither. */
    void linkDown(int i) throws IOException {
        Shell.run("ip", "link", "set", veth(i), "down");
    }

    /** Every drop, delay and loss removed, every link up. */
    void heal() throws IOException {
        for (int i = 0; i < sleds; i++) {
            Shell.run("ip", "link", "set", veth(i), "up");
            // No filter is no failure.
            Shell.quietly(Shell.in(ns(i), List.of("tc", "filter", "del", "dev", "eth0", "parent", "1:", "prio", "1"))
                    .toArray(String[]::new));
            inNs(i, "tc", "class", "change", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb", "rate", FAST);
            inNs(i, "iptables-legacy", "-F", "OUTPUT");
        }
    }

    /** Kills what still runs in the namespaces, then removes them and the bridge; failures are listed, not thrown. */
    @Override
    public void close() {
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < sleds; i++) {
            if (created.contains(ns(i))) {
                try {
                    for (String pid : Shell.run("ip", "netns", "pids", ns(i)).split("\\s+")) {
                        if (!pid.isBlank()) {
                            Shell.quietly("kill", "-9", pid.trim());
                        }
                    }
                } catch (IOException e) {
                    failures.add(e.getMessage());
                }
                String why = Shell.quietly("ip", "netns", "del", ns(i));
                if (why != null) {
                    failures.add(why);
                }
            }
        }
        if (created.contains("bridge")) {
            String why = Shell.quietly("ip", "link", "del", bridge());
            if (why != null) {
                failures.add(why);
            }
        }
        created.clear();
        if (!failures.isEmpty()) {
            System.err.println("nemesis: cleanup left: " + String.join("; ", failures));
        }
    }
}
