// Attachments: drop files on a form with a file picker, or paste an
// image (a screenshot) into it, and they join the picker's files; the
// form then posts them as it posts a picked file. No inline scripts.
(function () {
  "use strict";

  // addFiles appends files to the picker input's list.
  function addFiles(input, files) {
    if (!files || !files.length || typeof DataTransfer === "undefined") return false;
    var dt = new DataTransfer();
    var i;
    for (i = 0; i < input.files.length; i++) dt.items.add(input.files[i]);
    for (i = 0; i < files.length; i++) dt.items.add(files[i]);
    input.files = dt.files;
    input.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  // pasted names a pasted image that has no name of its own.
  function pasted(file, n) {
    if (file.name && file.name !== "image.png") return file;
    var ext = (file.type.split("/")[1] || "png").replace(/[^a-z0-9]/g, "");
    return new File([file], "pasted-" + n + "." + ext, { type: file.type });
  }

  function wire(form) {
    var input = form.querySelector("input.attach-input");
    if (!input) return;
    form.addEventListener("dragover", function (e) {
      if (e.dataTransfer && Array.prototype.indexOf.call(e.dataTransfer.types, "Files") >= 0) {
        e.preventDefault();
        form.classList.add("dropping");
      }
    });
    form.addEventListener("dragleave", function () { form.classList.remove("dropping"); });
    form.addEventListener("drop", function (e) {
      form.classList.remove("dropping");
      if (e.dataTransfer && e.dataTransfer.files.length) {
        e.preventDefault();
        addFiles(input, e.dataTransfer.files);
      }
    });
    var count = 0;
    form.addEventListener("paste", function (e) {
      var items = (e.clipboardData && e.clipboardData.items) || [];
      var files = [];
      for (var i = 0; i < items.length; i++) {
        if (items[i].kind === "file") {
          var f = items[i].getAsFile();
          if (f) files.push(pasted(f, ++count));
        }
      }
      if (files.length && addFiles(input, files)) e.preventDefault();
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var forms = document.querySelectorAll("form");
    for (var i = 0; i < forms.length; i++) wire(forms[i]);
  });
})();
