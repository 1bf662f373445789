(function(){
"use strict";
function copy(text,btn){
  var done=function(){var l=btn.textContent;btn.textContent=btn.getAttribute("data-done");setTimeout(function(){btn.textContent=l},1500)};
  var fallback=function(){var t=document.createElement("textarea");t.value=text;t.setAttribute("readonly","");t.style.position="fixed";t.style.opacity="0";document.body.appendChild(t);t.select();try{document.execCommand("copy");done()}catch(e){}document.body.removeChild(t)};
  if(navigator.clipboard&&navigator.clipboard.writeText){navigator.clipboard.writeText(text).then(done,fallback)}else{fallback()}
}
document.addEventListener("click",function(e){
  var b=e.target.closest("button[data-copy]");
  if(b){var p=document.getElementById(b.getAttribute("data-copy"));if(p)copy(p.textContent,b);return}
  var t=e.target.closest("button[data-toggle]");
  if(t){var open=t.getAttribute("aria-pressed")!=="true";t.setAttribute("aria-pressed",open?"true":"false");
    document.querySelectorAll("details.finding").forEach(function(d){d.open=open})}
});
var findings=function(){return Array.prototype.slice.call(document.querySelectorAll("details.finding>summary"))};
document.addEventListener("keydown",function(e){
  if(e.ctrlKey||e.metaKey||e.altKey)return;
  var tag=(e.target.tagName||"").toLowerCase();if(tag==="input"||tag==="textarea")return;
  if(e.key!=="j"&&e.key!=="k")return;
  var all=findings();if(!all.length)return;
  var i=all.indexOf(document.activeElement);
  i=e.key==="j"?Math.min(all.length-1,i+1):Math.max(0,i<0?0:i-1);
  all[i].focus();all[i].scrollIntoView({block:"center"});e.preventDefault();
});
window.addEventListener("beforeprint",function(){document.querySelectorAll("details").forEach(function(d){d.setAttribute("data-was",d.open?"1":"0");d.open=true})});
window.addEventListener("afterprint",function(){document.querySelectorAll("details[data-was]").forEach(function(d){d.open=d.getAttribute("data-was")==="1";d.removeAttribute("data-was")})});
document.documentElement.setAttribute("data-ready","1");
})();
