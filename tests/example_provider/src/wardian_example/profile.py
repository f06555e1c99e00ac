from wardian_core.provider import DialogKeys, InputProfile

INPUT_PROFILE = InputProfile(
    submit_key="\r",
    bracketed_paste=True,
    paste_threshold=120,
    settle_seconds=0.1,
    dialogs={"allow": DialogKeys(accept="y", reject="n")},
    sender_tag=True,
)
