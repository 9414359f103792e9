package sush.ops.api;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import reactor.netty.http.server.HttpServerRequest;

/**
 * Closes a connection whose pending output has not moved for {@code stall}: Netty's idle
 * handler with output observed (a slow reader that keeps taking bytes is not idle), acting
 * only when something is waiting to be written. What waits is counted here, from each write
 * that passes this handler until its promise completes (written out or failed), with Netty's
 * public API: the channel's outbound buffer is its transport's own.
 */
final class WriteStall extends IdleStateHandler {
    /** The handler's name in the pipeline. */
    private static final String NAME = "sush-write-stall";
    /** Writes passed on and not yet completed; read and changed on the channel's event loop only. */
    private long pending;

    WriteStall(Duration stall) {
        super(true, 0, stall.toMillis(), 0, TimeUnit.MILLISECONDS);
    }

    /** Cuts the connection of {@code q} once what it is sent stops moving for {@code stall}. */
    static void install(HttpServerRequest q, Duration stall) {
        q.withConnection(c -> c.addHandlerLast(NAME, new WriteStall(stall)));
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) throws Exception {
        // The idle handler makes a void promise a real one for its own listener too: same here.
        ChannelPromise counted = promise.unvoid();
        pending++;
        counted.addListener(f -> pending--);
        super.write(ctx, msg, counted);
    }

    @Override
    protected void channelIdle(ChannelHandlerContext ctx, IdleStateEvent e) {
        if (e.state() == IdleState.WRITER_IDLE && pending > 0) {
            ctx.close();
        }
    }
}
