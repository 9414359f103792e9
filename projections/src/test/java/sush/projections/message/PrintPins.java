package sush.projections.message;

import java.util.HexFormat;

/** Prints the bytes of every sample, for pinning a new format version once. */
final class PrintPins {
    private PrintPins() {
    }

    public static void main(String[] args) {
        Samples.all().forEach((k, m) -> System.out.println("            Map.entry(\"" + k + "\", \""
                + HexFormat.of().formatHex(MessageCodec.encode(m)) + "\"),"));
    }
}
